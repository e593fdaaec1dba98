/** Minds, their digital twins and tags. */
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { id, createdAt, updatedAt } from './columns.ts';
import { organizations } from './accounts.ts';

export const minds = pgTable('minds', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  email: text('email'),
  imageUrl: text('image_url'),
  socialMedia: jsonb('social_media').$type<Record<string, unknown>>(),
  scope: text('scope').notNull().default('private'),
  isSelf: boolean('is_self').notNull().default(false),
  /** Lower-cased name, email, slug, tag names and social values: what search matches (trigram index). */
  searchText: text('search_text').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  uniqueIndex('minds_org_slug_key').on(t.organizationId, t.slug),
  index('minds_org_created_idx').on(t.organizationId, t.createdAt.desc()),
  index('minds_search_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
]);

export const digitalTwins = pgTable('digital_twins', {
  id: id(),
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  isDefault: boolean('is_default').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index('digital_twins_mind_idx').on(t.mindId)]);

export const tags = pgTable('tags', {
  id: id(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex('tags_org_lower_name_key').on(t.organizationId, sql`lower(${t.name})`)]);

export const mindTags = pgTable('mind_tags', {
  mindId: uuid('mind_id').notNull().references(() => minds.id, { onDelete: 'cascade' }),
  tagId: uuid('tag_id').notNull().references(() => tags.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.mindId, t.tagId] }), index('mind_tags_tag_idx').on(t.tagId)]);
