import { Type, type Static } from 'typebox';
import { describedPattern, Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';
import { Tag, TagNames } from '../tags/index.ts';

export const Mind = named('Mind', Type.Object({
  id: Uuid,
  name: Type.String({ example: 'Ada Lovelace' }),
  slug: Nullable(Type.String({ example: 'ada-lovelace' })),
  email: Nullable(Type.String({ example: 'ada@example.com' })),
  imageUrl: Nullable(Type.String({ example: 'https://example.com/ada.png' })),
  socialMedia: Nullable(Type.Record(Type.String(), Type.Unknown(), { example: { linkedin: 'https://linkedin.com/in/ada' } })),
  scope: Type.String({ example: 'private' }),
  isSelf: Type.Boolean({ example: false }),
  organizationId: Nullable(Uuid),
  createdAt: Nullable(Timestamp),
  updatedAt: Nullable(Timestamp),
  tags: Type.Array(Tag),
  snapshotCount: Type.Number({ example: 2 }),
  psychometricCount: Type.Number({ example: 24 }),
  keyTopicCount: Type.Number({ example: 9 }),
  findingCount: Type.Number({ example: 31 }),
}));
export type Mind = Static<typeof Mind>;

export const DigitalTwin = named('DigitalTwin', Type.Object({
  id: Uuid,
  name: Type.String({ example: 'Default Twin' }),
  mindId: Uuid,
  isDefault: Type.Boolean({ example: true }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));
export type DigitalTwin = Static<typeof DigitalTwin>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', example: 'Ada Lovelace' });
const Email = Nullable(Type.String({ format: 'email', maxLength: 320, example: 'ada@example.com' }));
/**
 * A picture clients put in an <img>: an http(s) URL, or an inline data:image/ URL (the dashboard's
 * CSP allows data: images; users' generated pictures are such URLs). Any other scheme
 * (`javascript:`, `file:`, …) is refused: a client that renders the value as a link would run or
 * open it. Schemes are case-insensitive (RFC 3986), hence the character classes.
 */
const IMAGE_URL_PATTERN = describedPattern('^(?:[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]|[Dd][Aa][Tt][Aa]:[Ii][Mm][Aa][Gg][Ee]/)', 'must be an http(s):// URL or a data:image/ URL');
const ImageUrl = Nullable(Type.String({ format: 'uri', pattern: IMAGE_URL_PATTERN, maxLength: 2048, description: 'An http(s) URL or a data:image/ URL', example: 'https://example.com/ada.png' }));
const SocialMedia = Nullable(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 50 }));

export const CreateMindBody = named('CreateMindRequest', Type.Object(
  {
    name: Name,
    email: Type.Optional(Email),
    imageUrl: Type.Optional(ImageUrl),
    socialMedia: Type.Optional(SocialMedia),
    tags: Type.Optional(TagNames),
    isSelf: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
));
export type CreateMindBody = Static<typeof CreateMindBody>;

export const UpdateMindBody = named('UpdateMindRequest', Type.Object(
  {
    name: Type.Optional(Name),
    email: Type.Optional(Email),
    imageUrl: Type.Optional(ImageUrl),
    socialMedia: Type.Optional(SocialMedia),
    tags: Type.Optional(TagNames),
    isSelf: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
));
export type UpdateMindBody = Static<typeof UpdateMindBody>;

export const MindParams = Type.Object({ mindId: Uuid });
export const ListMindsQuery = Type.Object({
  tagNames: Type.Optional(Type.String({ description: 'Comma-separated tag names; minds carrying any of them (case-insensitive). Empty means no filter.', example: 'sales,emea' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many minds (default: all of them)', example: 100 })),
  // A maximum: an integer past PostgreSQL's bigint (1e308 is an integer to JSON Schema) failed in the query as a 500 (found by bench/fuzz.ts).
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Skip this many minds first (with `limit`, for pages)', example: 0 })),
});
export const SEARCH_LIMIT = 50;
export const SearchMindsQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Matched, case-insensitively and partially, against name, email, slug, tag names and social-media values', example: 'ada' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: SEARCH_LIMIT, description: 'At most this many minds, best first', example: 20 })),
});
