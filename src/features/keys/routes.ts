import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { ApiKey, CreatedKey, CreateKeyBody, KeyParams } from './schemas.ts';
import * as keyService from './service.ts';

export const keyRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const tags = ['API keys'];

  app.get('/api-keys', {
    schema: {
      tags,
      summary: "List the caller's API keys",
      description: 'Keys of the calling user; secrets are never returned. `lastUsedAt` is written in batches, so it may lag by a few seconds.',
      response: { 200: Type.Object({ apiKeys: Type.Array(ApiKey) }), ...errorResponses() },
    },
  }, async (req) => ({ apiKeys: await keyService.listApiKeys(deps, req.caller) }));

  app.post('/api-keys', {
    schema: {
      tags,
      summary: 'Create an API key',
      description: 'A new key for the calling user. The secret is in the response once and is never shown again.',
      body: CreateKeyBody,
      response: {
        200: CreatedKey,
        ...errorResponses(415),
      },
    },
  }, async (req) => keyService.createApiKey(deps, req.caller, req.body ?? {}));

  app.delete('/api-keys/:keyId', {
    schema: {
      tags,
      summary: 'Revoke an API key',
      description: 'Revokes one of the caller’s own keys (the key in use included). Requests with it answer 401 from then on.',
      params: KeyParams,
      response: { 200: Type.Object({ success: Type.Boolean(), apiKey: ApiKey }), ...errorResponses(404) },
    },
  }, async (req) => ({ success: true, apiKey: await keyService.revokeApiKey(deps, req.caller, req.params) }));
};
