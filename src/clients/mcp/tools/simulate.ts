/** simulate: what the person would say, grounded in their own words, in a conversation that can go on. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { SimulateResult } from '@mindprint/client';
import { defineTool, oneLine, uuid, type ToolContext } from './define.ts';

const QUOTE_CHARS = 400;

interface FileOf {
  fileName: string;
  speakersLabelled: boolean | null;
}

/** Snapshots an answer's warnings say name no speakers (the answer's own word, whatever the list of files says). */
function unlabelledOf(r: SimulateResult): Set<string> {
  return new Set((r.warnings ?? []).flatMap((w) => (w.code === 'unlabelled_speakers' ? (w.snapshotIds ?? []) : [])));
}

export function simulationText(r: SimulateResult, files: Map<string, FileOf>): string {
  const lines = [r.message, ''];
  const warnings = r.warnings ?? [];
  for (const w of warnings) lines.push(`Warning: ${w.message}`);
  if (warnings.length) lines.push('');
  const unlabelled = unlabelledOf(r);
  if (r.evidence.length) {
    lines.push(unlabelled.size ? 'Evidence (quotes the answer rests on; some come from a file that names no speakers and may be someone else’s words):' : 'Evidence (the person’s own words the answer rests on):');
    r.evidence.forEach((e, i) => {
      const file = files.get(e.snapshotId);
      const flag = unlabelled.has(e.snapshotId) || file?.speakersLabelled === false ? '; this file names no speakers, so the quote may be someone else’s' : '';
      lines.push(`${i + 1}. "${oneLine(e.quote, QUOTE_CHARS)}" (${file ? file.fileName : 'snapshot'} ${e.snapshotId}${flag})`);
    });
  } else {
    lines.push('Evidence: none (nothing this person said matched the message).');
  }
  lines.push('', `conversationId: ${r.conversationId} (pass it to continue this conversation)`);
  return lines.join('\n');
}

/**
 * The file of each quoted snapshot and whether it names its speakers (one list read). The answer is
 * stored already: if the list cannot be read, the quotes go without their files rather than the
 * answer being lost to an error.
 */
async function filesOf(ctx: ToolContext, mindId: string, r: SimulateResult): Promise<Map<string, FileOf>> {
  if (!r.evidence.length) return new Map();
  try {
    const { snapshots } = await ctx.client().listSnapshots(mindId);
    return new Map(snapshots.map((s) => [s.id, { fileName: s.fileName, speakersLabelled: s.speakersLabelled }]));
  } catch {
    return new Map();
  }
}

export function registerSimulateTool(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'simulate',
    {
      title: 'Simulate what a person would say',
      description:
        'Asks a mind a question or tells it a scenario; answers in the first person the way that person would, grounded in what they really said, with the verbatim quotes (evidence) it rests on. ' +
        'Pass the returned conversationId to continue the same conversation. The mind needs at least one completed snapshot.',
      input: {
        mindId: uuid('The mind id (from get_all_minds or search_minds)'),
        message: z.string().trim().min(1).max(8000).describe('What the person is asked or told'),
        conversationId: uuid('Continue this conversation (from an earlier simulate answer)').optional(),
        snapshotId: uuid('Answer as of this snapshot: only it and earlier ones are used (from list_snapshots)').optional(),
        model: z.string().trim().min(1).max(200).optional().describe('A simulation model id (default: the service’s default, or the one the conversation uses)'),
      },
      output: {
        answer: z.string().describe('The person’s answer, in the first person'),
        evidence: z.array(
          z.object({
            quote: z.string().describe('Verbatim'),
            snapshotId: z.string(),
            turnId: z.string(),
            startMs: z.number().nullable(),
            fileName: z.string().nullable(),
            speakersLabelled: z.boolean().nullable().describe('false: the quote’s file names no speakers, so it may be someone else’s words'),
          }),
        ),
        warnings: z
          .array(z.object({ code: z.string(), message: z.string(), snapshotIds: z.array(z.string()).optional() }))
          .describe('What to know before trusting the answer; `unlabelled_speakers`: some evidence comes from a file that names no speakers, so those quotes may be someone else’s words'),
        conversationId: z.string().describe('Pass it back to continue the conversation'),
        simulationId: z.string(),
        model: z.string(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ mindId, message, conversationId, snapshotId, model }, signal) => {
      const r = await ctx.client().simulate(
        { mindId, scenario: { message }, ...(conversationId ? { conversationId } : {}), ...(snapshotId ? { snapshotId } : {}), ...(model ? { selectedSimulationModel: model } : {}) },
        { signal },
      );
      const files = await filesOf(ctx, mindId, r);
      const unlabelled = unlabelledOf(r);
      return {
        text: simulationText(r, files),
        data: {
          answer: r.message,
          evidence: r.evidence.map((e) => {
            const file = files.get(e.snapshotId);
            return { quote: e.quote, snapshotId: e.snapshotId, turnId: e.turnId, startMs: e.startMs, fileName: file?.fileName ?? null, speakersLabelled: unlabelled.has(e.snapshotId) ? false : (file?.speakersLabelled ?? null) };
          }),
          warnings: r.warnings ?? [],
          conversationId: r.conversationId,
          simulationId: r.simulationId,
          model: r.model,
        },
      };
    },
  );
}
