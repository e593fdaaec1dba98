import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses, SuccessResponse } from '../../platform/http/schemas.ts';
import { RenameTagBody, Tag, TagParams, TagWithCount } from './schemas.ts';
import * as tagService from './service.ts';

export const tagRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['Tags'];

  app.get('/tags', {
    schema: { tags, summary: 'List tags', description: 'Every tag of the organization with the number of minds carrying it.', response: { 200: Type.Object({ tags: Type.Array(TagWithCount) }), ...errorResponses() } },
  }, async (req) => ({ tags: await tagService.listTags(deps, req.caller) }));

  app.put('/tags/:tagId', {
    schema: {
      tags,
      summary: 'Rename a tag',
      description: 'Names are unique per organization without regard to case; renaming onto an existing name answers 409.',
      params: TagParams,
      body: RenameTagBody,
      response: { 200: Type.Object({ tag: Tag }), ...errorResponses(404, 409, 415) },
    },
  }, async (req) => ({ tag: await tagService.renameTag(deps, req.caller, { ...req.params, ...req.body }) }));

  app.delete('/tags/:tagId', {
    schema: { tags, summary: 'Delete a tag', description: 'The tag is taken off every mind.', params: TagParams, response: { 200: SuccessResponse, ...errorResponses(404) } },
  }, async (req) => {
    await tagService.deleteTag(deps, req.caller, req.params);
    return { success: true };
  });
};
