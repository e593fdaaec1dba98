import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

export const Tag = named('Tag', Type.Object({
  id: Uuid,
  name: Type.String({ example: 'sales' }),
  organizationId: Nullable(Uuid),
  createdAt: Nullable(Timestamp),
  updatedAt: Nullable(Timestamp),
}));
export type Tag = Static<typeof Tag>;

export const TagWithCount = named('TagWithCount', Type.Object({
  ...Tag.properties,
  mindCount: Type.Number({ description: 'How many minds carry this tag', example: 3 }),
}));

export const TagName = Type.String({ minLength: 1, maxLength: 100, example: 'sales' });

/** Tag names as a comma-separated string (the spec's form) or an array. */
export const TagNames = named('TagNames', Type.Union([Type.String({ maxLength: 5000, example: 'sales,emea' }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })]));

export const TagParams = Type.Object({ tagId: Uuid });
export type TagParams = Static<typeof TagParams>;
export const RenameTagBody = named('RenameTagRequest', Type.Object({ name: TagName }, { additionalProperties: false }));
export type RenameTagBody = Static<typeof RenameTagBody>;
export const SetMindTagsBody = named('SetMindTagsRequest', Type.Object({ tagNames: TagNames }, { additionalProperties: false }));
