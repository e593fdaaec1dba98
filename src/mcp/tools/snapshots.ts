/**
 * create_snapshot, get_snapshot_status and list_snapshots: a snapshot is one transcript processed
 * into the mind's memory bank. Each says which file it came from and whose words were taken to be
 * the mind's, and flags a file that names no speakers (every voice in it counts as the mind).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SnapshotWaitError, type MindprintClient, type SnapshotDetails, type SnapshotStatus } from '@mindprint/client';
import { CREATES, defineTool, plural, READ_ONLY, uuid, type ToolContext } from './define.ts';

const mindId = uuid('The mind id (from get_all_minds, search_minds or create_mind)');
const MAX_WAIT_SECONDS = 50;
const Status = z.enum(['pending', 'processing', 'completed', 'failed']).describe('Only completed snapshots feed the mind');

/** How the mind's words were told apart from the others' in one file (known once processed). */
const Attribution = {
  fileName: z.string(),
  mindSpeaker: z.string().nullable().describe('The speaker label taken to be the mind'),
  attribution: z.enum(['requested', 'name', 'inferred']).nullable().describe('How it was chosen: requested (the speaker argument), name (matched the mind’s name) or inferred (the speaker with the most words)'),
  speakersLabelled: z.boolean().nullable().describe('false: the file names no speakers, so every voice in it counts as the mind'),
  attributionNote: z.string().nullable(),
  mindWords: z.number().describe('Words of the mind in this file'),
  otherSpeakers: z.array(z.string()).describe('The other speaker labels of the file, most words first'),
};

const SnapshotRow = z.object({
  id: z.string(),
  status: Status,
  mindsetDate: z.string(),
  linked: z.boolean().describe('Only linked, completed snapshots feed simulations and the profile'),
  error: z.string().nullable(),
  ...Attribution,
});
type SnapshotRow = z.infer<typeof SnapshotRow>;

function attributionOf(d: SnapshotDetails) {
  return {
    fileName: d.artifact.fileName,
    mindSpeaker: d.mindSpeaker,
    attribution: d.attribution,
    speakersLabelled: d.speakersLabelled,
    attributionNote: d.attributionNote,
    mindWords: d.mindWords,
    otherSpeakers: d.speakers
      .filter((s) => !s.isMind)
      .sort((a, b) => b.words - a.words)
      .map((s) => s.label),
  };
}

/** The flag every surface shows for a file without speaker names. */
export const unlabelledWarning = (fileName: string) =>
  `Warning: ${fileName} names no speakers (auto-captions or an unlabelled document), so every voice in it counts as this mind — interviewers and other guests too.`;

function attributionLine(a: ReturnType<typeof attributionOf>): string {
  if (a.speakersLabelled === false) return unlabelledWarning(a.fileName);
  if (!a.mindSpeaker) return '';
  const how = a.attribution === 'requested' ? 'as asked' : a.attribution === 'name' ? 'matched by name' : 'the speaker with the most words';
  return `${a.mindWords} words of "${a.mindSpeaker}" (${how})${a.otherSpeakers.length ? `; others: ${a.otherSpeakers.slice(0, 5).join(', ')}` : ''}.`;
}

/** A mind's snapshots with their file and attribution (the list rows lack both: one details read each, a few at a time). */
async function snapshotRows(client: MindprintClient, mind: string): Promise<SnapshotRow[]> {
  const { snapshots } = await client.listSnapshots(mind);
  const rows: SnapshotRow[] = new Array(snapshots.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < snapshots.length; i = next++) {
      const s = snapshots[i]!;
      const d = await client.getSnapshot(mind, s.id);
      rows[i] = { id: s.id, status: s.status, mindsetDate: s.mindsetDate, linked: s.linked, error: s.error, ...attributionOf(d) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, snapshots.length) }, worker));
  return rows;
}

const day = (iso: string) => iso.slice(0, 10);

export function registerSnapshotTools(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'create_snapshot',
    {
      title: 'Create a snapshot from an uploaded transcript',
      description:
        'Turns an uploaded artifact (get_signed_upload_url, then an upload) into a memory-bank snapshot of the mind and queues its processing. ' +
        'Answers at once with mindAssessmentId (the snapshot id): follow it with get_snapshot_status until completed.',
      input: {
        mindId,
        artifactId: uuid('The artifactId from get_signed_upload_url, once its upload is done'),
        mindsetDate: z.string().trim().min(4).max(40).optional().describe('When the conversation took place: ISO 8601 date or date-time (default now)'),
        speaker: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe('The speaker label in the file that is this person (default: matched by the mind’s name, else the speaker with the most words)'),
      },
      output: { mindAssessmentId: z.string().describe('The snapshot id'), artifactId: z.string(), status: Status },
      annotations: CREATES,
    },
    async ({ mindId, artifactId, mindsetDate, speaker }) => {
      const created = await ctx.client().createSnapshotFromArtifact(mindId, { artifactId, mindsetDate, speaker });
      return {
        text: `Snapshot ${created.mindAssessmentId} created from artifact ${created.artifactId}; processing has started. Next: get_snapshot_status {mindId, snapshotId: "${created.mindAssessmentId}"} until it is completed.`,
        data: { mindAssessmentId: created.mindAssessmentId, artifactId: created.artifactId, status: 'pending' as const },
      };
    },
  );

  defineTool(
    server,
    ctx,
    'get_snapshot_status',
    {
      title: 'Get a snapshot’s processing status',
      description:
        'pending → processing → completed | failed (with the reason). Once completed: the file, the speaker taken to be the mind and their word count, and a warning when the file names no speakers. ' +
        `waitSeconds (up to ${MAX_WAIT_SECONDS}) waits for the snapshot to finish before answering.`,
      input: {
        mindId,
        snapshotId: uuid('The snapshot id (mindAssessmentId from create_snapshot, or from list_snapshots)'),
        waitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe('Wait up to this long for completed or failed (default 0: answer at once)'),
      },
      output: {
        id: z.string(),
        mindId: z.string(),
        status: Status,
        startedAt: z.string().nullable(),
        completedAt: z.string().nullable(),
        error: z.string().nullable(),
        // Known once the snapshot is completed.
        ...z.object(Attribution).partial().shape,
      },
      annotations: READ_ONLY,
    },
    async ({ mindId, snapshotId, waitSeconds = 0 }, signal) => {
      const client = ctx.client();
      let status: SnapshotStatus;
      if (waitSeconds > 0) {
        try {
          status = await client.waitForSnapshot(mindId, snapshotId, { timeoutMs: waitSeconds * 1000, intervalMs: 250, signal });
        } catch (err) {
          if (!(err instanceof SnapshotWaitError)) throw err;
          status = err.status;
        }
      } else {
        status = await client.getSnapshotStatus(mindId, snapshotId, signal);
      }
      const base = { id: status.id, mindId: status.mindId, status: status.status, startedAt: status.startedAt, completedAt: status.completedAt, error: status.error };
      if (status.status !== 'completed') {
        const text =
          status.status === 'failed'
            ? `Snapshot ${status.id} failed: ${status.error ?? 'no reason given'}. It feeds nothing; upload a corrected file and create a new snapshot.`
            : `Snapshot ${status.id} is ${status.status}. Ask again in a few seconds (or pass waitSeconds).`;
        return { text, data: base };
      }
      const attribution = attributionOf(await client.getSnapshot(mindId, snapshotId));
      return { text: [`Snapshot ${status.id} (${attribution.fileName}) is completed.`, attributionLine(attribution)].filter(Boolean).join(' '), data: { ...base, ...attribution } };
    },
  );

  defineTool(
    server,
    ctx,
    'list_snapshots',
    {
      title: 'List a mind’s snapshots',
      description:
        'The memory-bank snapshots (one per uploaded transcript) of a mind, newest mindsetDate first: status, file name, the speaker taken to be the mind and their words, and a warning for files that name no speakers. ' +
        'Only completed, linked snapshots feed simulations and the profile.',
      input: { mindId },
      output: { snapshots: z.array(SnapshotRow), count: z.number() },
      annotations: READ_ONLY,
    },
    async ({ mindId }) => {
      const rows = await snapshotRows(ctx.client(), mindId);
      if (!rows.length) return { text: 'This mind has no snapshots yet: get_signed_upload_url, upload, then create_snapshot.', data: { snapshots: [], count: 0 } };
      const lines = rows.map((r) => {
        const state = r.status === 'failed' ? `failed: ${r.error ?? 'no reason given'}` : `${r.status}${r.linked ? '' : ', unlinked'}`;
        const who = r.speakersLabelled === false ? ' — every voice counts as the mind (no speaker names)' : r.mindSpeaker ? ` — ${r.mindWords} words of "${r.mindSpeaker}"` : '';
        return `- ${day(r.mindsetDate)} ${r.fileName}: ${state}${who} (id ${r.id})`;
      });
      return { text: [`${plural(rows.length, 'snapshot')}:`, ...lines].join('\n'), data: { snapshots: rows, count: rows.length } };
    },
  );
}
