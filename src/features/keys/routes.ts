import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { issueKey, listKeys, revokeKey } from '../../platform/auth/keys.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../platform/errors.ts';
import { errorResponses, iso, Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

const ApiKey = named('ApiKey', Type.Object({
  id: Uuid,
  name: Nullable(Type.String()),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart', example: 'mp_Xk2' }),
  organizationId: Uuid,
  userId: Uuid,
  createdAt: Timestamp,
  expiresAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
  lastUsedAt: Nullable(Timestamp),
}));

const toApiKey = (k: Awaited<ReturnType<typeof listKeys>>[number]) => ({
  ...k,
  createdAt: iso(k.createdAt)!,
  expiresAt: iso(k.expiresAt),
  revokedAt: iso(k.revokedAt),
  lastUsedAt: iso(k.lastUsedAt),
});

export const keyRoutes: FastifyPluginAsyncTypebox<{ ctx: Deps }> = async (app, { ctx }) => {
  const { db } = ctx;
  const tags = ['API keys'];

  app.get('/api-keys', {
    schema: {
      tags,
      summary: "List the caller's API keys",
      description: 'Keys of the calling user; secrets are never returned. `lastUsedAt` is written in batches, so it may lag by a few seconds.',
      response: { 200: Type.Object({ apiKeys: Type.Array(ApiKey) }), ...errorResponses() },
    },
  }, async (req) => ({ apiKeys: (await listKeys(db, { userId: req.caller.userId })).map(toApiKey) }));

  app.post('/api-keys', {
    schema: {
      tags,
      summary: 'Create an API key',
      description: 'A new key for the calling user. The secret is in the response once and is never shown again.',
      body: Type.Object(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, example: 'ci' })),
          expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, example: 90 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({ key: Type.String({ example: 'mp_…' }), apiKey: ApiKey }),
        ...errorResponses(415),
      },
    },
  }, async (req) => {
    const body = req.body ?? {};
    const issued = await issueKey(db, { organizationId: req.caller.organizationId, userId: req.caller.userId, name: body.name, expiresInDays: body.expiresInDays });
    const [info] = (await listKeys(db, { userId: req.caller.userId })).filter((k) => k.id === issued.keyId);
    return { key: issued.key, apiKey: toApiKey(info!) };
  });

  app.delete('/api-keys/:keyId', {
    schema: {
      tags,
      summary: 'Revoke an API key',
      description: 'Revokes one of the caller’s own keys (the key in use included). Requests with it answer 401 from then on.',
      params: Type.Object({ keyId: Uuid }),
      response: { 200: Type.Object({ success: Type.Boolean(), apiKey: ApiKey }), ...errorResponses(404) },
    },
  }, async (req) => {
    const revoked = await revokeKey(db, req.params.keyId, { userId: req.caller.userId });
    if (!revoked) throw notFound('API key');
    ctx.auth.forgetKey(revoked.id);
    return { success: true, apiKey: toApiKey(revoked) };
  });
};
