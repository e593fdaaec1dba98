/**
 * POST /minds/import: a `mindprint.mind.v1` bundle becomes a new mind of the caller's
 * organization, in one transaction: the mind (and its default twin and tags, through createMind),
 * each snapshot with its file's record, turns, psychometrics, key topics and findings, every id
 * new (the bundle's ids are local to the file; evidence and findings are pointed at the new turn
 * ids). The snapshots are stored `completed` and emit `snapshot.completed` in that transaction,
 * so what follows a completion elsewhere follows here too: the semantic index is queued and built
 * in the background (features/memory), vectors being never shipped.
 *
 * Checked before anything is written, each problem a 400 naming the field: the format version
 * (a newer one is refused by name), the schema (Ajv, the same MindBundle the OpenAPI document
 * shows), the mind's fields by the rules of POST /minds, and the references (turn ids that point
 * nowhere, duplicate ids, files of no snapshot, bytes that are not base64 or not a transcript).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { artifacts, findings, keyTopics, psychometrics, snapshots, turns } from '../../platform/db/schema.ts';
import { AfterCommit } from '../../platform/events/index.ts';
import { invalid } from '../../platform/errors.ts';
import { validatorCompiler } from '../../platform/http/validation.ts';
import { sniffFile } from '../../lib/ingest/index.ts';
import { createMind, CreateMindBody, getDefaultTwinId } from '../minds/index.ts';
import { artifactStorageKey, CONTENT_TYPE } from '../snapshots/index.ts';
import type { FileKind } from '../../lib/ingest/types.ts';
import { BUNDLE_FORMAT, MindBundle, type BundleSnapshot, type ImportResult } from './schemas.ts';

/** Rows per INSERT, as the pipeline writes them. */
const BATCH = 500;


type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const compile = (schema: unknown) => validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/minds/import' } as never) as unknown as Validator;
let bundleValidator: Validator | null = null;
let mindValidator: Validator | null = null;

/** A validation failure worded by the one error handler, as Fastify's own body validation is ("body.snapshots.0.turns.3.seq must be integer"). */
function validationError(errors: unknown[] | null | undefined, prefix: string): Error {
  const list = (errors ?? []) as { instancePath?: string }[];
  const err = new Error('invalid bundle') as Error & { validation: unknown[]; validationContext: string; statusCode: number };
  err.validation = list.map((e) => ({ ...e, instancePath: `${prefix}${e.instancePath ?? ''}` }));
  err.validationContext = 'body';
  err.statusCode = 400;
  return err;
}

/** `mindprint.mind.v7` → 7; null for anything else. */
const versionOf = (format: string): number | null => {
  const m = /^mindprint\.mind\.v(\d{1,9})$/.exec(format);
  return m ? Number(m[1]) : null;
};
const OUR_VERSION = versionOf(BUNDLE_FORMAT)!;

/** The bundle as a checked value, or a 400 naming what is wrong. */
export function checkBundle(body: unknown): MindBundle {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('The body must be a mind bundle: a JSON object (what GET /minds/{mindId}/export answers)', { field: 'body' });
  const format = (body as { format?: unknown }).format;
  if (format === undefined) throw invalid(`body.format is required: a mind bundle says its format ("${BUNDLE_FORMAT}")`, { field: 'body.format' });
  if (typeof format !== 'string') throw invalid(`body.format must be the string "${BUNDLE_FORMAT}"`, { field: 'body.format' });
  const version = versionOf(format);
  if (version !== null && version > OUR_VERSION) {
    throw invalid(`body.format is ${format}, a newer version than this server reads (${BUNDLE_FORMAT}): upgrade Mindprint to import it`, { field: 'body.format', supported: [BUNDLE_FORMAT] });
  }
  if (format !== BUNDLE_FORMAT) throw invalid(`body.format is "${format.slice(0, 100)}", not a mind bundle format this server reads (${BUNDLE_FORMAT})`, { field: 'body.format', supported: [BUNDLE_FORMAT] });
  bundleValidator ??= compile(MindBundle);
  if (!bundleValidator(body)) throw validationError(bundleValidator.errors, '');
  const bundle = body as MindBundle;
  // The mind by the rules of POST /minds (an image URL must be http(s) or data:image/, an email an email, …).
  mindValidator ??= compile(CreateMindBody);
  const { createdAt: _createdAt, ...mindFields } = bundle.mind;
  if (!mindValidator(mindFields)) throw validationError(mindValidator.errors, '/mind');
  checkReferences(bundle);
  return bundle;
}

/** Ids unique where they must be, and every reference pointing at something in the bundle. */
function checkReferences(bundle: MindBundle): void {
  const snapshotIds = new Set<string>();
  const turnIds = new Set<string>();
  bundle.snapshots.forEach((s, i) => {
    const at = `body.snapshots.${i}`;
    if (snapshotIds.has(s.id)) throw invalid(`${at}.id "${s.id}" is the id of an earlier snapshot of the bundle`, { field: `${at}.id` });
    snapshotIds.add(s.id);
    const seqs = new Set<number>();
    s.turns.forEach((t, j) => {
      if (turnIds.has(t.id)) throw invalid(`${at}.turns.${j}.id "${t.id}" is the id of an earlier turn of the bundle`, { field: `${at}.turns.${j}.id` });
      turnIds.add(t.id);
      if (seqs.has(t.seq)) throw invalid(`${at}.turns.${j}.seq ${t.seq} is the seq of an earlier turn of the snapshot`, { field: `${at}.turns.${j}.seq` });
      seqs.add(t.seq);
    });
  });
  const pointsNowhere = (field: string, turnId: string) => invalid(`${field} "${turnId}" names no turn of the bundle`, { field });
  bundle.snapshots.forEach((s, i) => {
    const at = `body.snapshots.${i}`;
    s.psychometrics.forEach((p, j) => p.evidence.forEach((e, k) => {
      if (!turnIds.has(e.turnId)) throw pointsNowhere(`${at}.psychometrics.${j}.evidence.${k}.turnId`, e.turnId);
    }));
    s.keyTopics.forEach((p, j) => p.evidence.forEach((e, k) => {
      if (!turnIds.has(e.turnId)) throw pointsNowhere(`${at}.keyTopics.${j}.evidence.${k}.turnId`, e.turnId);
    }));
    s.findings.forEach((f, j) => {
      if (!turnIds.has(f.turnId)) throw pointsNowhere(`${at}.findings.${j}.turnId`, f.turnId);
    });
  });
  const withFile = new Set<string>();
  (bundle.artifacts ?? []).forEach((a, i) => {
    const field = `body.artifacts.${i}.snapshotId`;
    if (!snapshotIds.has(a.snapshotId)) throw invalid(`${field} "${a.snapshotId}" names no snapshot of the bundle`, { field });
    if (withFile.has(a.snapshotId)) throw invalid(`${field} "${a.snapshotId}": that snapshot's file is already in the bundle`, { field });
    withFile.add(a.snapshotId);
  });
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface StagedFile {
  path: string;
  kind: FileKind;
}

/** The bundle's files decoded to temp files and recognised by their bytes, by snapshot local id. */
async function stageFiles(ctx: Deps, bundle: MindBundle, dir: string): Promise<Map<string, StagedFile>> {
  const staged = new Map<string, StagedFile>();
  for (const [i, a] of (bundle.artifacts ?? []).entries()) {
    const field = `body.artifacts.${i}.contentBase64`;
    if (a.contentBase64.length % 4 !== 0 || !BASE64.test(a.contentBase64)) throw invalid(`${field} is not base64`, { field });
    const bytes = Buffer.from(a.contentBase64, 'base64');
    if (bytes.length === 0) throw invalid(`${field} is empty`, { field });
    if (bytes.length > ctx.config.maxUploadBytes) throw invalid(`${field} is larger than the upload size limit`, { field });
    const file = path.join(dir, `${i}`);
    await writeFile(file, bytes);
    const kind = await sniffFile(file);
    if (!kind) throw invalid(`${field} is not a transcript this service reads (WebVTT, SRT, DOCX, PDF or UTF-8 text)`, { field });
    staged.set(a.snapshotId, { path: file, kind });
  }
  return staged;
}

/** Creates the bundle's mind in the caller's organization. */
export async function importMind(ctx: Deps, caller: Caller, body: unknown): Promise<ImportResult> {
  const bundle = checkBundle(body);
  const dir = path.join(ctx.config.dataDir, 'tmp', `import-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  const storedKeys: string[] = [];
  try {
    const staged = await stageFiles(ctx, bundle, dir);
    const after = new AfterCommit();
    let result: ImportResult;
    try {
      result = await ctx.db.transaction(async (tx) => {
        const { mind } = await createMind(tx, caller, {
          name: bundle.mind.name,
          email: bundle.mind.email,
          imageUrl: bundle.mind.imageUrl,
          socialMedia: bundle.mind.socialMedia,
          isSelf: bundle.mind.isSelf,
          tags: bundle.tags,
        });
        const twinId = await getDefaultTwinId(tx, mind.id);
        const counts = { snapshots: 0, turns: 0, psychometrics: 0, keyTopics: 0, findings: 0, artifacts: 0 };
        // Every turn's new id first: evidence may point at a turn of another snapshot of the bundle.
        const turnIds = new Map(bundle.snapshots.flatMap((s) => s.turns.map((t) => [t.id, randomUUID()] as const)));
        for (const s of bundle.snapshots) {
          const file = staged.get(s.id) ?? null;
          const stored = await writeSnapshot(ctx, tx, caller, mind.id, twinId, s, file, turnIds, storedKeys);
          counts.snapshots++;
          counts.turns += s.turns.length;
          counts.psychometrics += s.psychometrics.length;
          counts.keyTopics += s.keyTopics.length;
          counts.findings += s.findings.length;
          if (file) counts.artifacts++;
          // What follows a completion (the semantic index, …) follows an imported one too.
          await ctx.events.emit(tx, 'snapshot.completed', { organizationId: caller.organizationId, mindId: mind.id, snapshotId: stored }, after);
        }
        return {
          mindId: mind.id,
          name: mind.name,
          slug: mind.slug ?? '',
          ...counts,
          semanticIndex: { status: bundle.snapshots.length ? 'indexing' : 'ready', embedder: ctx.memory.embedder.id, exportedWith: bundle.semanticIndex.embedder },
        };
      });
    } catch (err) {
      await Promise.all(storedKeys.map((k) => ctx.store.delete(k).catch(() => {})));
      throw err;
    }
    after.run();
    ctx.mindCache?.invalidate(caller.organizationId);
    ctx.database.noteBulkWrite();
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One snapshot with its file's record (and bytes), turns and analyses; returns the new snapshot id. */
async function writeSnapshot(
  ctx: Deps,
  tx: Db,
  caller: Caller,
  mindId: string,
  twinId: string | null,
  s: BundleSnapshot,
  file: StagedFile | null,
  turnIds: Map<string, string>,
  storedKeys: string[],
): Promise<string> {
  const organizationId = caller.organizationId;
  const artifactId = randomUUID();
  const key = artifactStorageKey(organizationId, mindId, artifactId);
  let stored: { size: number; sha256: string } | null = null;
  if (file) {
    stored = await ctx.store.putFile(key, file.path, { contentType: CONTENT_TYPE[file.kind] });
    storedKeys.push(key);
  }
  await tx.insert(artifacts).values({
    id: artifactId,
    organizationId,
    mindId,
    storageKey: key,
    fileName: s.file.name,
    contentType: file ? CONTENT_TYPE[file.kind] : s.file.contentType,
    kind: file?.kind ?? s.file.kind,
    size: stored?.size ?? s.file.size,
    sha256: stored?.sha256 ?? s.file.sha256,
    autoCaptions: s.file.autoCaptions,
    // Without its bytes the record says so: no upload can fill it, and the sweeper leaves it alone.
    status: stored ? 'uploaded' : 'imported',
    uploadedAt: stored ? new Date() : null,
  });
  const [row] = await tx
    .insert(snapshots)
    .values({
      organizationId,
      mindId,
      digitalTwinId: twinId,
      artifactId,
      mindsetDate: new Date(s.mindsetDate),
      status: 'completed',
      linked: s.linked,
      requestedSpeaker: s.requestedSpeaker,
      mindSpeaker: s.mindSpeaker,
      attribution: s.attribution,
      speakersLabelled: s.speakersLabelled,
      speakers: s.speakers,
      mindWords: s.mindWords,
      psychometricCount: s.psychometrics.length,
      keyTopicCount: s.keyTopics.length,
      findingCount: s.findings.length,
      createdAt: new Date(s.createdAt),
      startedAt: s.completedAt ? new Date(s.completedAt) : null,
      completedAt: s.completedAt ? new Date(s.completedAt) : new Date(),
    })
    .returning({ id: snapshots.id });
  const snapshotId = row!.id;
  const base = { organizationId, mindId, snapshotId };
  for (let i = 0; i < s.turns.length; i += BATCH) {
    await tx.insert(turns).values(
      s.turns.slice(i, i + BATCH).map((t) => ({ ...base, id: turnIds.get(t.id)!, seq: t.seq, speaker: t.speaker, text: t.text, startMs: t.startMs, endMs: t.endMs, isMind: t.isMind, context: t.context, replyWords: t.replyWords })),
    );
  }
  const evidence = (list: { turnId: string; quote: string; startMs: number | null }[]) => list.map((e) => ({ turnId: turnIds.get(e.turnId)!, quote: e.quote, startMs: e.startMs }));
  for (let i = 0; i < s.psychometrics.length; i += BATCH) {
    await tx.insert(psychometrics).values(s.psychometrics.slice(i, i + BATCH).map((p) => ({ ...base, instrument: p.instrument, name: p.name, score: p.score, percentile: p.percentile, confidence: p.confidence, note: p.note, evidence: evidence(p.evidence) })));
  }
  for (let i = 0; i < s.keyTopics.length; i += BATCH) {
    await tx.insert(keyTopics).values(s.keyTopics.slice(i, i + BATCH).map((k) => ({ ...base, rank: k.rank, label: k.label, keywords: k.keywords, share: k.share, sentiment: k.sentiment, evidence: evidence(k.evidence) })));
  }
  for (let i = 0; i < s.findings.length; i += BATCH) {
    await tx.insert(findings).values(s.findings.slice(i, i + BATCH).map((f) => ({ ...base, kind: f.kind, statement: f.statement, quote: f.quote, turnId: turnIds.get(f.turnId)!, startMs: f.startMs, polarity: f.polarity, confidence: f.confidence })));
  }
  return snapshotId;
}
