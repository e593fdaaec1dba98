/** TypeBox schemas of users: validation, OpenAPI and TS types. */
import { Type, type Static } from 'typebox';
import { Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

export const User = named('User', Type.Object({
  id: Uuid,
  name: Type.String({ example: 'Grace Hopper' }),
  email: Type.String({ example: 'grace@example.com' }),
  imageUrl: Type.String({
    description: "The user's picture; for a user without one, a generated picture of their initials (an SVG `data:` URL)",
    example: 'https://example.com/grace.png',
  }),
  createdAt: Timestamp,
}));
export type User = Static<typeof User>;
