/**
 * get_mind_profile: what an assistant needs to know about a person in a few lines (the Big Five
 * with their confidence, strongest emotions, communication style, top topics, a few findings in
 * the person's words), not the full profile with every trajectory point and evidence turn that
 * GET /minds/{id}/profile answers (tens of KB that would crowd the assistant's context).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MindProfile } from '@mindprint/client';
import { defineTool, oneLine, plural, READ_ONLY, uuid, type ToolContext } from './define.ts';

const TOP_EMOTIONS = 3;
const TOP_TOPICS = 6;
const TOPIC_KEYWORDS = 5;
const TOP_FINDINGS = 5;
const QUOTE_CHARS = 160;

const round = (x: number | null, digits = 2) => (x === null ? null : Number(x.toFixed(digits)));

const Trait = z.object({
  name: z.string(),
  score: z.number().nullable().describe('0–1'),
  percentile: z.number().nullable().describe('Against the norm corpus'),
  confidence: z.number().describe('0–1: how far to trust the score (grows with the person’s words)'),
});

const CompactProfile = {
  mindId: z.string(),
  name: z.string(),
  asOf: z.string().nullable().describe('The newest snapshot’s mindsetDate'),
  snapshotCount: z.number(),
  mindWords: z.number().describe('Words of the person the profile rests on'),
  bigFive: z.array(Trait).describe('Most distinctive first (furthest from the median)'),
  emotions: z.array(z.object({ name: z.string(), score: z.number().nullable() })).describe('The strongest'),
  style: z.record(z.string(), z.number().nullable()).describe('Communication-style measures (see the service’s analysis README)'),
  topics: z.array(z.object({ label: z.string(), keywords: z.array(z.string()), share: z.number().describe('Of the person’s words'), sentiment: z.number().describe('−1 to 1') })),
  findings: z.array(z.object({ kind: z.string(), statement: z.string(), quote: z.string(), mindsetDate: z.string() })),
  unlabelledFiles: z.array(z.string()).describe('Files behind the profile that name no speakers: every voice in them counts as this person'),
};
type CompactProfile = z.infer<z.ZodObject<typeof CompactProfile>>;

export function compactProfile(mindId: string, name: string, p: MindProfile['profile'], unlabelledFiles: string[]): CompactProfile {
  const distinct = (t: { percentile: number | null; score: number | null }) => Math.abs((t.percentile ?? (t.score ?? 0.5) * 100) - 50);
  return {
    mindId,
    name,
    asOf: p.asOf,
    snapshotCount: p.snapshotCount,
    mindWords: p.mindWords,
    bigFive: p.traits
      .filter((t) => t.instrument === 'big_five')
      .sort((a, b) => distinct(b) - distinct(a))
      .map((t) => ({ name: t.name, score: round(t.score), percentile: round(t.percentile, 0), confidence: round(t.confidence)! })),
    emotions: p.traits
      .filter((t) => t.instrument === 'emotion' && t.score !== null)
      .sort((a, b) => b.score! - a.score!)
      .slice(0, TOP_EMOTIONS)
      .map((t) => ({ name: t.name, score: round(t.score, 3) })),
    style: Object.fromEntries(Object.entries(p.style).map(([k, v]) => [k, round(v)])),
    topics: p.keyTopics.slice(0, TOP_TOPICS).map((t) => ({ label: t.label, keywords: t.keywords.slice(0, TOPIC_KEYWORDS), share: round(t.share, 3)!, sentiment: round(t.sentiment)! })),
    findings: p.findings.slice(0, TOP_FINDINGS).map((f) => ({ kind: f.kind, statement: oneLine(f.statement, QUOTE_CHARS), quote: oneLine(f.quote, QUOTE_CHARS), mindsetDate: f.mindsetDate.slice(0, 10) })),
    unlabelledFiles,
  };
}

const level = (percentile: number | null) => (percentile === null ? 'unknown' : percentile >= 70 ? 'high' : percentile <= 30 ? 'low' : 'average');

export function profileText(c: CompactProfile): string {
  if (!c.snapshotCount) return `${c.name} has no completed, linked snapshot yet: upload a transcript (get_signed_upload_url, then create_snapshot).`;
  const lines = [`${c.name}: profile from ${plural(c.snapshotCount, 'snapshot')}, ${c.mindWords} words of theirs, as of ${c.asOf?.slice(0, 10) ?? 'unknown'}.`];
  if (c.bigFive.length) {
    lines.push(`Big Five (percentile, confidence): ${c.bigFive.map((t) => `${t.name} ${level(t.percentile)} (${t.percentile ?? '?'}, ${t.confidence})`).join('; ')}.`);
  }
  if (c.emotions.length) lines.push(`Strongest emotions: ${c.emotions.map((e) => e.name).join(', ')}.`);
  if (c.topics.length) lines.push(`Topics: ${c.topics.map((t) => `${t.label} (${Math.round(t.share * 100)}%: ${t.keywords.join(', ')})`).join('; ')}.`);
  if (c.findings.length) lines.push('Findings:', ...c.findings.map((f) => `- [${f.kind}] ${f.statement} — "${f.quote}"`));
  if (c.unlabelledFiles.length) {
    const files = c.unlabelledFiles.slice(0, 5).join(', ') + (c.unlabelledFiles.length > 5 ? ', …' : '');
    lines.push(`Warning: ${plural(c.unlabelledFiles.length, 'file')} behind this profile name no speakers (${files}): every voice in them counts as ${c.name}, so other people's words may be in it.`);
  }
  return lines.join('\n');
}

export function registerProfileTool(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'get_mind_profile',
    {
      title: 'Get a mind’s profile',
      description:
        'A compact profile of the person from their completed, linked snapshots: Big Five traits with confidence, strongest emotions, communication style, top topics and a few findings quoted from their own words; ' +
        'a warning names the files that name no speakers (their every voice counts as the person).',
      input: { mindId: uuid('The mind id (from get_all_minds or search_minds)') },
      output: CompactProfile,
      annotations: READ_ONLY,
    },
    async ({ mindId }) => {
      const client = ctx.client();
      const [{ name, profile }, { snapshots }] = await Promise.all([client.getProfile(mindId), client.listSnapshots(mindId)]);
      // The profile rests on the linked, completed snapshots.
      const unlabelled = snapshots.filter((s) => s.linked && s.status === 'completed' && s.speakersLabelled === false).map((s) => s.fileName);
      const compact = compactProfile(mindId, name, profile, unlabelled);
      return { text: profileText(compact), data: compact };
    },
  );
}
