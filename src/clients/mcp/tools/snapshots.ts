/**
 * create_snapshot, get_snapshot_status, list_snapshots and set_snapshot_speaker: a snapshot is one
 * transcript processed into the mind's memory bank. Each says which file it came from and whose
 * words were taken to be the mind's, and flags a file that names no speakers (every voice in it
 * counts as the mind) with the service's own warning; set_snapshot_speaker fixes the attribution.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SnapshotWaitError, type Snapshot, type SnapshotDetails, type SnapshotStatus } from '@mindprint/client';
import { CREATES, defineTool, plural, READ_ONLY, uuid, type ToolContext } from './define.ts';

const mindId = uuid('The mind id (from get_all_minds, search_minds or create_mind)');
const snapshotId = uuid('The snapshot id (mindAssessmentId from create_snapshot, or from list_snapshots)');
const MAX_WAIT_SECONDS = 50;
const Status = z.enum(['pending', 'processing', 'completed', 'failed']).describe('Only completed snapshots feed the mind');

/** The flag of a file without speaker names, as the service words it (null unless flagged). */
const Speakers = {
  mindSpeaker: z.string().nullable().describe('The speaker label taken to be the mind (null until processed)'),
  speakersLabelled: z.boolean().nullable().describe('false: the file names no speakers, so every voice in it counts as the mind (null until known)'),
  speakerWarning: z.string().nullable().describe('Set when speakersLabelled is false: what that means for the mind'),
};

const SnapshotRow = z.object({
  id: z.string(),
  status: Status,
  mindsetDate: z.string(),
  linked: z.boolean().describe('Only linked, completed snapshots feed simulations and the profile'),
  error: z.string().nullable(),
  fileName: z.string(),
  mindWords: z.number().describe('Words of the mind in this file (0 until processed)'),
  ...Speakers,
});
type SnapshotRow = z.infer<typeof SnapshotRow>;

export const snapshotRow = (s: Snapshot): SnapshotRow => ({
  id: s.id,
  status: s.status,
  mindsetDate: s.mindsetDate,
  linked: s.linked,
  error: s.error,
  fileName: s.fileName,
  mindWords: s.mindWords,
  mindSpeaker: s.mindSpeaker,
  speakersLabelled: s.speakersLabelled,
  speakerWarning: s.speakerWarning,
});

/** How the mind's words were told apart in a processed file: known from the snapshot's details. */
const Attribution = {
  fileName: z.string(),
  mindWords: z.number(),
  attribution: z.enum(['requested', 'name', 'inferred']).nullable().describe('How the speaker was chosen: requested (the speaker argument), name (matched the mind’s name) or inferred (the most words)'),
  otherSpeakers: z.array(z.string()).describe('The file’s other speaker labels, most words first: set_snapshot_speaker can pick one instead'),
};

const attributionOf = (d: SnapshotDetails) => ({
  fileName: d.fileName,
  mindWords: d.mindWords,
  attribution: d.attribution,
  otherSpeakers: d.speakers
    .filter((s) => !s.isMind)
    .sort((a, b) => b.words - a.words)
    .map((s) => s.label),
});

const HOW: Record<string, string> = { requested: 'as asked', name: 'matched by name', inferred: 'the speaker with the most words' };

function completedText(id: string, s: SnapshotStatus, a: ReturnType<typeof attributionOf>): string {
  const lines = [`Snapshot ${id} (${a.fileName}) is completed.`];
  if (s.speakerWarning) lines.push(`Warning: ${s.speakerWarning}`);
  else if (s.mindSpeaker) {
    lines.push(`${a.mindWords} words of "${s.mindSpeaker}" (${HOW[a.attribution ?? ''] ?? 'attributed'})${a.otherSpeakers.length ? `; the others: ${a.otherSpeakers.slice(0, 6).join(', ')}` : ''}.`);
    if (a.attribution === 'inferred' && a.otherSpeakers.length) lines.push('If that is not the person, set_snapshot_speaker picks another label.');
  }
  return lines.join(' ');
}

const day = (iso: string) => iso.slice(0, 10);

export function registerSnapshotTools(server: McpServer, ctx: ToolContext): void {
  createSnapshot(server, ctx);
  snapshotStatus(server, ctx);
  listSnapshots(server, ctx);
  setSnapshotSpeaker(server, ctx);
}

/** create_snapshot: an uploaded artifact becomes a snapshot, its processing queued. */
function createSnapshot(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'create_snapshot',
    {
      title: 'Create a snapshot from an uploaded transcript',
      description:
        'Turns an uploaded artifact (get_signed_upload_url, then an upload) into a memory-bank snapshot of the mind and queues its processing. ' +
        'Answers at once with mindAssessmentId (the snapshot id): follow it with get_snapshot_status until completed. An auto-caption track is flagged at once (it names no speakers).',
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
          .describe('The speaker label in the file that is this person, matched ignoring case, by a unique prefix or by name (default: the mind’s name, else the speaker with the most words)'),
      },
      output: {
        mindAssessmentId: z.string().describe('The snapshot id'),
        artifactId: z.string(),
        status: Status,
        fileName: z.string(),
        fileKind: z.string().describe('Detected from the bytes: vtt, srt, docx, pdf or txt'),
        speaker: z.string().nullable().describe('The label `speaker` resolved to, when given'),
        speakersLabelled: Speakers.speakersLabelled,
        speakerWarning: Speakers.speakerWarning,
      },
      annotations: CREATES,
    },
    async ({ mindId, artifactId, mindsetDate, speaker }) => {
      const c = await ctx.client().createSnapshotFromArtifact(mindId, { artifactId, mindsetDate, speaker });
      const lines = [`Snapshot ${c.mindAssessmentId} created from ${c.fileName} (${c.fileKind}); processing has started.`];
      if (c.speaker) lines.push(`The mind is the speaker "${c.speaker}".`);
      if (c.speakerWarning) lines.push(`Warning: ${c.speakerWarning}`);
      lines.push(`Next: get_snapshot_status {mindId, snapshotId: "${c.mindAssessmentId}"} until it is completed.`);
      return {
        text: lines.join(' '),
        data: {
          mindAssessmentId: c.mindAssessmentId,
          artifactId: c.artifactId,
          status: 'pending' as const,
          fileName: c.fileName,
          fileKind: c.fileKind,
          speaker: c.speaker,
          speakersLabelled: c.speakersLabelled,
          speakerWarning: c.speakerWarning,
        },
      };
    },
  );
}

/** get_snapshot_status: where processing is, and once completed who the mind is in the transcript. */
function snapshotStatus(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'get_snapshot_status',
    {
      title: 'Get a snapshot’s processing status',
      description:
        'pending → processing → completed | failed (with the reason). Once completed: the file, the speaker taken to be the mind, their words and the other speakers, and a warning when the file names no speakers. ' +
        `waitSeconds (up to ${MAX_WAIT_SECONDS}) waits for the snapshot to finish before answering.`,
      input: {
        mindId,
        snapshotId,
        waitSeconds: z.number().min(0).max(MAX_WAIT_SECONDS).optional().describe('Wait up to this long for completed or failed (default 0: answer at once)'),
      },
      output: {
        id: z.string(),
        mindId: z.string(),
        status: Status,
        startedAt: z.string().nullable(),
        completedAt: z.string().nullable(),
        error: z.string().nullable(),
        ...Speakers,
        // Known once the snapshot is completed.
        ...z.object(Attribution).partial().shape,
      },
      annotations: READ_ONLY,
    },
    async ({ mindId, snapshotId, waitSeconds = 0 }, signal) => {
      const client = ctx.client();
      let s: SnapshotStatus;
      if (waitSeconds > 0) {
        try {
          s = await client.waitForSnapshot(mindId, snapshotId, { timeoutMs: waitSeconds * 1000, intervalMs: 250, signal });
        } catch (err) {
          if (!(err instanceof SnapshotWaitError)) throw err;
          s = err.status;
        }
      } else {
        s = await client.getSnapshotStatus(mindId, snapshotId, signal);
      }
      const base = {
        id: s.id,
        mindId: s.mindId,
        status: s.status,
        startedAt: s.startedAt,
        completedAt: s.completedAt,
        error: s.error,
        mindSpeaker: s.mindSpeaker,
        speakersLabelled: s.speakersLabelled,
        speakerWarning: s.speakerWarning,
      };
      if (s.status !== 'completed') {
        const text =
          s.status === 'failed'
            ? `Snapshot ${s.id} failed: ${s.error ?? 'no reason given'}. It feeds nothing; upload a corrected file and create a new snapshot.`
            : `Snapshot ${s.id} is ${s.status}. Ask again in a few seconds (or pass waitSeconds).${s.speakerWarning ? ` Warning: ${s.speakerWarning}` : ''}`;
        return { text, data: base };
      }
      const attribution = attributionOf(await client.getSnapshot(mindId, snapshotId));
      return { text: completedText(s.id, s, attribution), data: { ...base, ...attribution } };
    },
  );
}

/** list_snapshots: the mind's snapshots, newest mindset first. */
function listSnapshots(server: McpServer, ctx: ToolContext): void {
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
      const rows = (await ctx.client().listSnapshots(mindId)).snapshots.map(snapshotRow);
      if (!rows.length) return { text: 'This mind has no snapshots yet: get_signed_upload_url, upload, then create_snapshot.', data: { snapshots: [], count: 0 } };
      const lines = rows.map((r) => {
        const state = r.status === 'failed' ? `failed: ${r.error ?? 'no reason given'}` : `${r.status}${r.linked ? '' : ', unlinked'}`;
        const who = r.speakersLabelled === false ? ' — names no speakers: every voice in it counts as the mind' : r.mindSpeaker ? ` — ${r.mindWords} words of "${r.mindSpeaker}"` : '';
        return `- ${day(r.mindsetDate)} ${r.fileName}: ${state}${who} (id ${r.id})`;
      });
      return { text: [`${plural(rows.length, 'snapshot')}:`, ...lines].join('\n'), data: { snapshots: rows, count: rows.length } };
    },
  );
}

/** set_snapshot_speaker: another speaker of a labelled transcript taken as the mind. */
function setSnapshotSpeaker(server: McpServer, ctx: ToolContext): void {
  defineTool(
    server,
    ctx,
    'set_snapshot_speaker',
    {
      title: 'Choose which speaker of a file is the mind',
      description:
        'Re-attributes a completed or failed snapshot to another speaker label of its file (matched ignoring case, by a unique prefix such as "Lenny" → "Lenny Rachitsky", or by name) and processes it again; ' +
        'follow it with get_snapshot_status. get_snapshot_status lists the file’s other speakers. An unknown or ambiguous label is an error that lists the labels.',
      input: { mindId, snapshotId, speaker: z.string().trim().min(1).max(200).describe('The label in the file that is this person') },
      output: { speaker: z.string().describe('The label now taken to be the mind'), reprocessing: z.boolean().describe('false when it already was the mind’s speaker'), snapshot: SnapshotRow },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ mindId, snapshotId, speaker }) => {
      const r = await ctx.client().setSnapshotSpeaker(mindId, snapshotId, speaker);
      const text = r.reprocessing
        ? `Snapshot ${snapshotId} now takes "${r.speaker}" as the mind and is being processed again. Next: get_snapshot_status until it is completed.`
        : `"${r.speaker}" already is the mind's speaker in snapshot ${snapshotId}: nothing changed.`;
      return { text, data: { speaker: r.speaker, reprocessing: r.reprocessing, snapshot: snapshotRow(r.snapshot) } };
    },
  );
}
