/**
 * GET /minds/{mindId}/export: the mind as a `mindprint.mind.v1` bundle, written as it is read.
 * The mind, its tags and the list of its completed snapshots are read first (a 404 is still a
 * JSON error); then each snapshot's rows are read in a short transaction of their own and written
 * out before the next is read, so memory holds one snapshot at a time and no transaction stays
 * open while a slow client reads (on PGlite a transaction holds the only connection).
 */
import { readFile } from 'node:fs/promises';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../platform/db/client.ts';
import { artifacts, findings, keyTopics, minds, mindTags, psychometrics, snapshots, tags, turns, type EvidenceRow } from '../../platform/db/schema.ts';
import { notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { VERSION } from '../../platform/version.ts';
import { BUNDLE_FORMAT, type BundleSnapshot, type MindBundle } from './schemas.ts';

/** Room left for the bundle's closing text when deciding whether one more file fits. */
const CLOSING_MARGIN = 1024;

interface SnapshotHead {
  id: string;
  artifactId: string;
  storageKey: string;
  artifactStatus: string;
}

export interface ExportPlan {
  /** The bundle's text, piece by piece. */
  chunks: AsyncGenerator<string>;
  /** For the download's file name. */
  slug: string;
}

/**
 * Reads what a 404 depends on now, and returns the rest as a generator of JSON text. Throws 404
 * for a mind the caller's organization does not have.
 */
export async function exportMind(ctx: Deps, caller: Caller, mindId: string, opts: { artifacts?: boolean } = {}): Promise<ExportPlan> {
  const { db } = ctx;
  const [mind] = await db.select().from(minds).where(and(eq(minds.id, mindId), eq(minds.organizationId, caller.organizationId)));
  if (!mind) throw notFound('Mind');
  const tagRows = await db
    .select({ name: tags.name })
    .from(mindTags)
    .innerJoin(tags, eq(tags.id, mindTags.tagId))
    .where(eq(mindTags.mindId, mindId))
    .orderBy(sql`lower(${tags.name})`);
  const heads: SnapshotHead[] = await db
    .select({ id: snapshots.id, artifactId: snapshots.artifactId, storageKey: artifacts.storageKey, artifactStatus: artifacts.status })
    .from(snapshots)
    .innerJoin(artifacts, eq(artifacts.id, snapshots.artifactId))
    .where(and(eq(snapshots.mindId, mindId), eq(snapshots.organizationId, caller.organizationId), eq(snapshots.status, 'completed')))
    .orderBy(asc(snapshots.mindsetDate), asc(snapshots.createdAt), asc(snapshots.id));
  const embedders = rowsEmbedder(
    await db
      .select({ embedder: snapshots.embedder })
      .from(snapshots)
      .where(and(eq(snapshots.mindId, mindId), eq(snapshots.status, 'completed'), sql`${snapshots.embedder} is not null`))
      .groupBy(snapshots.embedder)
      .orderBy(sql`count(*) desc`),
  );
  const head: Omit<MindBundle, 'snapshots' | 'artifacts' | 'omittedArtifacts'> = {
    format: BUNDLE_FORMAT,
    exportedAt: new Date().toISOString(),
    generator: `mindprint ${VERSION}`,
    mind: {
      name: mind.name,
      email: mind.email,
      imageUrl: mind.imageUrl,
      socialMedia: mind.socialMedia ?? null,
      isSelf: mind.isSelf,
      createdAt: iso(mind.createdAt),
    },
    tags: tagRows.map((t) => t.name),
    semanticIndex: { embedder: embedders[0] ?? null },
  };
  return { chunks: bundleText(ctx, head, heads, opts.artifacts === true), slug: mind.slug };
}

const rowsEmbedder = (rows: { embedder: string | null }[]) => rows.map((r) => r.embedder).filter((e): e is string => e !== null);

async function* bundleText(ctx: Deps, head: Omit<MindBundle, 'snapshots'>, heads: SnapshotHead[], withArtifacts: boolean): AsyncGenerator<string> {
  let written = 0;
  const emit = (s: string) => {
    written += Buffer.byteLength(s);
    return s;
  };
  // The head without its closing brace, then the snapshots one by one.
  yield emit(`${JSON.stringify(head).slice(0, -1)},"snapshots":[`);
  const turnIds = new Map<string, string>();
  const exported: { localId: string; head: SnapshotHead }[] = [];
  let first = true;
  for (const h of heads) {
    const localId = `s${exported.length + 1}`;
    const snapshot = await readSnapshot(ctx.db, h.id, localId, turnIds);
    if (!snapshot) continue; // deleted or sent back to processing since the list was read
    exported.push({ localId, head: h });
    yield emit(`${first ? '' : ','}${JSON.stringify(snapshot)}`);
    first = false;
  }
  yield emit(']');
  if (withArtifacts) {
    const omitted: string[] = [];
    let any = false;
    yield emit(',"artifacts":[');
    for (const { localId, head: h } of exported) {
      const size = h.artifactStatus === 'uploaded' ? (await ctx.store.stat(h.storageKey))?.size : undefined;
      const entryBytes = size === undefined ? Infinity : 4 * Math.ceil(size / 3) + 64;
      if (written + entryBytes + CLOSING_MARGIN + omitted.length * 110 > ctx.config.maxUploadBytes) {
        omitted.push(localId);
        continue;
      }
      const bytes = await ctx.store.withLocalFile(h.storageKey, (p) => readFile(p)).catch(() => null);
      if (!bytes) {
        omitted.push(localId);
        continue;
      }
      yield emit(`${any ? ',' : ''}{"snapshotId":${JSON.stringify(localId)},"contentBase64":"`);
      yield emit(bytes.toString('base64'));
      yield emit('"}');
      any = true;
    }
    yield emit(`],"omittedArtifacts":${JSON.stringify(omitted)}`);
  }
  yield emit('}\n');
}

const evidenceOut = (rows: EvidenceRow[], turnIds: Map<string, string>) =>
  rows.flatMap((e) => {
    const turnId = turnIds.get(e.turnId);
    return turnId ? [{ turnId, quote: e.quote, startMs: e.startMs ?? null }] : [];
  });

/** One completed snapshot with its rows, read together; null when it is no longer completed. */
async function readSnapshot(db: Db, snapshotId: string, localId: string, turnIds: Map<string, string>): Promise<BundleSnapshot | null> {
  return db.transaction(async (tx) => {
    const [s] = await tx
      .select({ snapshot: snapshots, file: artifacts })
      .from(snapshots)
      .innerJoin(artifacts, eq(artifacts.id, snapshots.artifactId))
      .where(and(eq(snapshots.id, snapshotId), eq(snapshots.status, 'completed')));
    if (!s) return null;
    const turnRows = await tx
      .select({ id: turns.id, seq: turns.seq, speaker: turns.speaker, text: turns.text, startMs: turns.startMs, endMs: turns.endMs, isMind: turns.isMind, context: turns.context, replyWords: turns.replyWords })
      .from(turns).where(eq(turns.snapshotId, snapshotId)).orderBy(asc(turns.seq));
    // Analyses in the order the analysis wrote them (the profile reads them so: by ctid), which import keeps.
    const psychRows = await tx.select().from(psychometrics).where(eq(psychometrics.snapshotId, snapshotId)).orderBy(sql`ctid`);
    const topicRows = await tx.select().from(keyTopics).where(eq(keyTopics.snapshotId, snapshotId)).orderBy(asc(keyTopics.rank), sql`ctid`);
    const findingRows = await tx.select().from(findings).where(eq(findings.snapshotId, snapshotId)).orderBy(sql`ctid`);
    for (const t of turnRows) turnIds.set(t.id, `t${turnIds.size + 1}`);
    const { snapshot, file } = s;
    const out: BundleSnapshot = {
      id: localId,
      mindsetDate: iso(snapshot.mindsetDate)!,
      linked: snapshot.linked,
      requestedSpeaker: snapshot.requestedSpeaker,
      mindSpeaker: snapshot.mindSpeaker,
      attribution: snapshot.attribution,
      speakersLabelled: snapshot.speakersLabelled,
      speakers: snapshot.speakers ?? null,
      mindWords: snapshot.mindWords,
      createdAt: iso(snapshot.createdAt)!,
      completedAt: iso(snapshot.completedAt),
      file: { name: file.fileName, kind: (file.kind as BundleSnapshot['file']['kind']) ?? null, contentType: file.contentType, size: file.size ?? null, sha256: file.sha256 ?? null, autoCaptions: file.autoCaptions },
      turns: turnRows.map((t) => ({ id: turnIds.get(t.id)!, seq: t.seq, speaker: t.speaker, text: t.text, startMs: t.startMs, endMs: t.endMs, isMind: t.isMind, context: t.context, replyWords: t.replyWords })),
      psychometrics: psychRows.map((p) => ({ instrument: p.instrument, name: p.name, score: p.score, percentile: p.percentile, confidence: p.confidence, note: p.note, evidence: evidenceOut(p.evidence, turnIds) })),
      keyTopics: topicRows.map((k) => ({ rank: k.rank, label: k.label, keywords: k.keywords, share: k.share, sentiment: k.sentiment, evidence: evidenceOut(k.evidence, turnIds) })),
      // A finding rests on one turn; one whose turn is gone (it cannot be, but) has nothing to point at.
      findings: findingRows.flatMap((f) => {
        const turnId = turnIds.get(f.turnId);
        return turnId ? [{ kind: f.kind, statement: f.statement, quote: f.quote, turnId, startMs: f.startMs, polarity: f.polarity, confidence: f.confidence }] : [];
      }),
    };
    return out;
  }, { isolationLevel: 'repeatable read', accessMode: 'read only' });
}
