import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses, SuccessResponse } from '../../platform/http/schemas.ts';
import { CreateMindBody, DigitalTwin, ListMindsQuery, Mind, MindParams, SearchMindsQuery, UpdateMindBody } from './schemas.ts';
import * as minds from './service.ts';
import { SetMindTagsBody } from '../tags/index.ts';

/** The body as the route's response schema serializes it (what the cache keeps). */
const serialized = (reply: FastifyReply, body: unknown) => reply.serialize(body) as string;
/** Sends JSON that is already serialized (a cache hit, or what was just stored). */
const sendJson = (reply: FastifyReply, json: string) => reply.type('application/json; charset=utf-8').send(json);

export const mindRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  const { db } = deps;
  const tags = ['Minds'];

  app.get('/minds', {
    schema: {
      tags,
      summary: 'List minds',
      description: 'Newest first. With `tagNames`, only minds carrying any of those tags (case-insensitive). All minds unless `limit` is given; `limit` and `offset` page through them.',
      querystring: ListMindsQuery,
      response: { 200: Type.Object({ minds: Type.Array(Mind) }), ...errorResponses() },
    },
  }, async (req, reply) => {
    const { tagNames, limit, offset } = req.query;
    const load = async () => ({ minds: await minds.listMinds(db, req.caller, req.query) });
    if (!deps.mindCache) return load();
    const key = `list:${req.caller.organizationId}:${limit ?? ''}:${offset ?? ''}:${tagNames ?? ''}`;
    return sendJson(reply, await deps.mindCache.read(req.caller.organizationId, key, async () => serialized(reply, await load())));
  });

  app.post('/minds', {
    schema: {
      tags,
      summary: 'Create a mind',
      description: 'Creates the mind and its default digital twin. `tags` is a comma-separated string (or an array); missing tags are created.',
      body: CreateMindBody,
      response: { 200: Type.Object({ mind: Mind, digitalTwin: DigitalTwin }), ...errorResponses(413, 415) },
    },
  }, async (req) => minds.createMind(db, req.caller, req.body));

  app.get('/minds/search', {
    schema: {
      tags,
      summary: 'Search minds',
      description: 'Case-insensitive partial match on name, email, slug, tag names and social-media values; a query never matches across two of them. Best first: a field equal to the query, then a field starting with it, then any containing it. At most `limit` (default 50, up to 200).',
      querystring: SearchMindsQuery,
      response: { 200: Type.Object({ minds: Type.Array(Mind) }), ...errorResponses() },
    },
  }, async (req) => ({ minds: await minds.searchMinds(db, req.caller, req.query) }));

  app.get('/minds/:mindId', {
    schema: {
      tags,
      summary: 'Get a mind',
      params: MindParams,
      response: { 200: Type.Object({ mind: Mind }), ...errorResponses(404) },
    },
  }, async (req, reply) => {
    const load = async () => ({ mind: await minds.getMind(db, req.caller, req.params.mindId) });
    if (!deps.mindCache) return load();
    return sendJson(reply, await deps.mindCache.read(req.caller.organizationId, `mind:${req.params.mindId}`, async () => serialized(reply, await load())));
  });

  app.put('/minds/:mindId', {
    schema: {
      tags,
      summary: 'Update a mind',
      description: 'Partial update: any of name, email, imageUrl, socialMedia, tags (replaces the set), isSelf.',
      params: MindParams,
      body: UpdateMindBody,
      response: { 200: Type.Object({ success: Type.Boolean(), mind: Mind }), ...errorResponses(404, 413, 415) },
    },
  }, async (req) => ({ success: true, mind: await minds.updateMind(db, req.caller, req.params.mindId, req.body) }));

  app.delete('/minds/:mindId', {
    schema: {
      tags,
      summary: 'Delete a mind',
      description: 'Deletes the mind and everything derived from it: twin, tag links, snapshots, transcripts, analysis, stored files and simulations.',
      params: MindParams,
      response: { 200: SuccessResponse, ...errorResponses(404) },
    },
  }, async (req) => {
    await minds.deleteMind(deps, req.caller, req.params.mindId);
    return { success: true };
  });

  // The tags of one mind: a mind operation (tags/ knows nothing of minds), listed under Tags.
  app.put('/minds/:mindId/tags', {
    schema: {
      tags: ['Tags'],
      summary: "Replace a mind's tags",
      description: '`tagNames` is an array or a comma-separated string; missing tags are created; an empty list removes every tag.',
      params: MindParams,
      body: SetMindTagsBody,
      response: { 200: Type.Object({ mind: Mind }), ...errorResponses(404, 415) },
    },
  }, async (req) => ({ mind: await minds.setMindTags(deps.db, req.caller, req.params.mindId, req.body.tagNames) }));
};
