/** get_all_minds, search_minds and create_mind: compact lists and the first step of building a mind. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Mind } from '@mindprint/client';
import { CREATES, defineTool, plural, READ_ONLY, type ToolContext } from './define.ts';

const MindSummary = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  tags: z.array(z.string()),
  snapshotCount: z.number(),
  psychometricCount: z.number(),
  keyTopicCount: z.number(),
  findingCount: z.number(),
  createdAt: z.string().nullable(),
});
type MindSummary = z.infer<typeof MindSummary>;

export const mindSummary = (m: Mind): MindSummary => ({
  id: m.id,
  name: m.name,
  email: m.email,
  tags: m.tags.map((t) => t.name),
  snapshotCount: m.snapshotCount,
  psychometricCount: m.psychometricCount,
  keyTopicCount: m.keyTopicCount,
  findingCount: m.findingCount,
  createdAt: m.createdAt,
});

const mindLine = (m: MindSummary) => `- ${m.name} (id ${m.id})${m.tags.length ? ` [${m.tags.join(', ')}]` : ''}: ${plural(m.snapshotCount, 'snapshot')}, ${plural(m.findingCount, 'finding')}`;

const MindList = { minds: z.array(MindSummary), count: z.number().describe('Minds in this answer'), hasMore: z.boolean().describe('More minds match than this answer holds') };

// Pages stay below the API's own maxima (1000 and 200): one more than asked tells whether there are more.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 500;
const SEARCH_LIMIT = 20;
const SEARCH_MAX = 100;

export function registerMindTools(server: McpServer, ctx: ToolContext): void {
  getAllMinds(server, ctx);
  searchMinds(server, ctx);
  createMind(server, ctx);
}

function getAllMinds(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'get_all_minds',
    {
      title: 'List minds',
      description:
        'Lists the minds (profiles of real people built from their transcripts) of the organization, newest first: id, name, tags and counts of snapshots, psychometrics, topics and findings. ' +
        'tagNames keeps only minds carrying any of those tags.',
      input: {
        tagNames: z
          .union([z.string().max(5000), z.array(z.string().min(1).max(100)).max(100)])
          .optional()
          .describe('Tag names: an array, or one comma-separated string (case-insensitive)'),
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`At most this many minds (default ${DEFAULT_LIMIT})`),
        offset: z.number().int().min(0).optional().describe('Skip this many minds first (to page)'),
      },
      output: MindList,
      annotations: READ_ONLY,
    },
    async ({ tagNames, limit = DEFAULT_LIMIT, offset = 0 }) => {
      const tags = Array.isArray(tagNames) ? tagNames.join(',') : tagNames;
      const { minds } = await ctx.client().listMinds({ ...(tags?.trim() ? { tagNames: tags } : {}), limit: limit + 1, offset });
      const page = minds.slice(0, limit).map(mindSummary);
      const hasMore = minds.length > limit;
      const text = page.length
        ? [`${plural(page.length, 'mind')}${hasMore ? ` (more with offset ${offset + page.length})` : ''}:`, ...page.map(mindLine)].join('\n')
        : tags?.trim()
          ? `No mind carries any of the tags ${tags}.`
          : 'No minds yet. create_mind makes one.';
      return { text, data: { minds: page, count: page.length, hasMore } };
    },
  );
}

function searchMinds(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'search_minds',
    {
      title: 'Search minds',
      description: 'Finds minds by a partial, case-insensitive match on name, email, slug, tag names or social-media values; exact matches first.',
      input: {
        query: z.string().trim().min(1).max(200).describe('What to look for, e.g. part of a name'),
        limit: z.number().int().min(1).max(SEARCH_MAX).optional().describe(`At most this many minds (default ${SEARCH_LIMIT})`),
      },
      output: MindList,
      annotations: READ_ONLY,
    },
    async ({ query, limit = SEARCH_LIMIT }) => {
      const { minds } = await ctx.client().searchMinds(query, { limit: limit + 1 });
      const found = minds.slice(0, limit).map(mindSummary);
      const hasMore = minds.length > limit;
      const text = found.length
        ? [`${plural(found.length, 'mind')} match "${query}"${hasMore ? ' (more match: narrow the query)' : ''}:`, ...found.map(mindLine)].join('\n')
        : `No mind matches "${query}".`;
      return { text, data: { minds: found, count: found.length, hasMore } };
    },
  );
}

function createMind(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'create_mind',
    {
      title: 'Create a mind',
      description:
        'Creates a mind: the profile of one real person, built from transcripts of what they said. Then add a transcript: get_signed_upload_url, upload_file_to_signed_url, create_snapshot. ' +
        'Name it as the person is named in the transcripts (their speaker label is matched by name).',
      input: {
        name: z.string().trim().min(1).max(200).describe('The person’s name, e.g. "Margaret Okafor"'),
        email: z.string().trim().min(3).max(320).optional().describe('Their email address'),
        tags: z.array(z.string().trim().min(1).max(100)).max(100).optional().describe('Tag names to group minds by, e.g. ["customers", "emea"]'),
      },
      output: { mind: MindSummary, digitalTwinId: z.string().describe('The mind’s default digital twin') },
      annotations: CREATES,
    },
    async ({ name, email, tags }) => {
      const { mind, digitalTwin } = await ctx.client().createMind({ name, ...(email ? { email } : {}), ...(tags?.length ? { tags } : {}) });
      const m = mindSummary(mind);
      return {
        text: `Created the mind ${m.name} (id ${m.id})${m.tags.length ? ` tagged ${m.tags.join(', ')}` : ''}. Next: get_signed_upload_url for a transcript of ${m.name}.`,
        data: { mind: m, digitalTwinId: digitalTwin.id },
      };
    },
  );
}
