/** TypeBox schemas of the caller's API keys: validation, OpenAPI and TS types. */
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

export const ApiKey = named('ApiKey', Type.Object({
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
export type ApiKey = Static<typeof ApiKey>;

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, example: 'ci' })),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, example: 90 })),
  },
  { additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const CreatedKey = Type.Object({ key: Type.String({ example: 'mp_…' }), apiKey: ApiKey });
export type CreatedKey = Static<typeof CreatedKey>;

export const KeyParams = Type.Object({ keyId: Uuid });
export type KeyParams = Static<typeof KeyParams>;
