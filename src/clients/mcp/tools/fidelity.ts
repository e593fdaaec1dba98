/**
 * get_mind_fidelity: how far to trust a mind's answers, measured on the person's own
 * conversations (GET /minds/{id}/fidelity): each conversation held out in turn, its questions put
 * to a mind built from the rest, the answers compared with what the person really said.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MindFidelity } from '@mindprint/client';
import { defineTool, READ_ONLY, uuid, type ToolContext } from './define.ts';

const f3 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The check as lines of text (the tool's text, and what `mindprint fidelity` prints). */
export function fidelityText(name: string, f: MindFidelity): string {
  const lines = [`${name}: ${f.summary}`];
  if (f.status === 'ready' || (f.status === 'pending' && f.computedAt)) {
    lines.push(
      `  specificity AUC ${f3(f.specificity)} (0.5 is chance) · beyond the question ${f3(f.beyondQuestion)} · abstained ${f3(f.abstentionRate)} · median source turns ${f.medianSourceTurns ?? 'n/a'}`,
      `  n = ${f.questions} questions from ${f.conversations} conversations · engine ${f.engine ?? 'n/a'} · embedder ${f.embedder ?? 'n/a'} · computed ${f.computedAt ?? 'n/a'}${f.current ? '' : ' (before the latest change; being recomputed)'}`,
    );
    f.examples.forEach((e, i) => lines.push('', `Example ${i + 1} (specificity ${f3(e.specificity)}):`, `  Q: ${oneLine(e.question)}`, `  Real: ${oneLine(e.real)}`, `  Simulated: ${oneLine(e.simulated)}`));
  }
  return lines.join('\n');
}

const share = (what: string) => z.number().nullable().describe(`0–1: ${what}`);

const Fidelity = {
  mindId: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'ready', 'insufficient']).describe('pending: being computed after the mind’s snapshots changed; insufficient: too little to hold out (see reason)'),
  current: z.boolean().describe('Whether the numbers are of the mind’s current memory'),
  reason: z.string().nullable(),
  summary: z.string().describe('The result in one plain sentence'),
  specificity: share('how often an answer is closer to the person’s real answer than to their other answers (0.5 is chance)'),
  beyondQuestion: share('the same without the question’s own words'),
  abstentionRate: share('share of questions the mind declined'),
  medianSourceTurns: z.number().nullable(),
  questions: z.number(),
  conversations: z.number(),
  engine: z.string().nullable(),
  computedAt: z.string().nullable(),
  examples: z.array(z.object({ question: z.string(), real: z.string(), simulated: z.string(), specificity: z.number().nullable() })),
};

export function registerFidelityTool(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'get_mind_fidelity',
    {
      title: 'How far to trust a mind',
      description:
        'The fidelity check of a mind: each of the person’s conversations held out in turn, the questions asked in it put to a mind built from the rest, and the simulated answers compared with what the person really said. ' +
        'Returns a plain-language trust line, the specificity (0.5 is chance), abstention rate and two example question / real answer / simulated answer triples; status pending while it is being computed, insufficient (with why) when the mind has too little to hold out.',
      input: { mindId: uuid('The mind id (from get_all_minds or search_minds)') },
      output: Fidelity,
      annotations: READ_ONLY,
    },
    async ({ mindId }) => {
      const client = ctx.client();
      const [{ mind }, f] = await Promise.all([client.getMind(mindId), client.getMindFidelity(mindId)]);
      const data = {
        mindId,
        name: mind.name,
        status: f.status as 'pending' | 'ready' | 'insufficient',
        current: f.current,
        reason: f.reason,
        summary: f.summary,
        specificity: f.specificity,
        beyondQuestion: f.beyondQuestion,
        abstentionRate: f.abstentionRate,
        medianSourceTurns: f.medianSourceTurns,
        questions: f.questions,
        conversations: f.conversations,
        engine: f.engine,
        computedAt: f.computedAt,
        examples: f.examples.map((e) => ({ question: e.question, real: e.real, simulated: e.simulated, specificity: e.specificity })),
      };
      return { text: fidelityText(mind.name, f), data };
    },
  );
}
