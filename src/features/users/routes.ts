import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { User } from './schemas.ts';
import * as userService from './service.ts';

export const userRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/users', {
    schema: {
      tags: ['Users'],
      summary: "List your organization's users",
      description: 'The people a simulation can be shared with.',
      response: { 200: Type.Object({ users: Type.Array(User) }), ...errorResponses() },
    },
  }, async (req) => ({ users: await userService.listUsers(deps, req.caller) }));
};
