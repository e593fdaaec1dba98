/**
 * The signed upload flow: a URL to PUT a file to (createSignedUrl), the PUT to a local signed URL
 * (receiveSignedUpload), and the first use of an S3 presigned upload, which checks the object the
 * client put there and copies it to the artifact's own key (readyArtifact).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Deps } from '../../deps.ts';
import { artifacts } from '../../platform/db/schema.ts';
import { DomainError, forbidden, invalid } from '../../platform/errors.ts';
import { sniffFile } from '../../lib/ingest/index.ts';
import { assertMindExists } from '../minds/index.ts';
import { InvalidUploadTokenError, PayloadTooLargeError, verifyUploadToken } from '../../platform/storage/index.ts';
import { incomingKey, keysOf, storageKey } from './artifact-keys.ts';
import { CONTENT_TYPE, isAutoCaptionFile, sniffUpload, UPLOADABLE_CONTENT_TYPES } from './file-kinds.ts';
import { assertHasContent, spoolToTempFile, tmpDir, type SpooledFile } from './spool.ts';
import { abandonUpload, claimUpload, markUploaded } from './state.ts';

type ArtifactRow = typeof artifacts.$inferSelect;

/**
 * How long a signed upload URL works. The artifact row does not store its URL's expiry: it is
 * created_at + this, give or take the moment between signing and the insert (the sweeper relies
 * on that).
 */
export const SIGNED_URL_SECONDS = 3600;

export async function createSignedUrl(ctx: Deps, caller: Caller, mindId: string, query: { contentType: string; fileName: string }, publicBaseUrl: string) {
  await assertMindExists(ctx.db, caller, mindId);
  const contentType = query.contentType.trim().toLowerCase();
  if (!UPLOADABLE_CONTENT_TYPES.has(contentType)) {
    throw invalid(`contentType must be one of ${[...UPLOADABLE_CONTENT_TYPES].join(', ')}`, { field: 'querystring.contentType' });
  }
  const fileName = path.basename(query.fileName.replace(/\\/g, '/')).trim();
  if (!fileName || [...fileName].some((c) => c.charCodeAt(0) < 0x20)) throw invalid('fileName must be a plain file name', { field: 'querystring.fileName' });
  const artifactId = randomUUID();
  // A local URL is single-use and writes the artifact's own key; an S3 URL writes an incoming key.
  const key = (ctx.store.kind === 's3' ? incomingKey : storageKey)(caller.organizationId, mindId, artifactId);
  const expiresInSeconds = SIGNED_URL_SECONDS;
  const upload = await ctx.store.createUploadUrl({
    key,
    artifactId,
    organizationId: caller.organizationId,
    contentType,
    maxBytes: ctx.config.maxUploadBytes,
    expiresInSeconds,
    publicBaseUrl,
  });
  await ctx.db.insert(artifacts).values({ id: artifactId, organizationId: caller.organizationId, mindId, storageKey: key, fileName, contentType, status: 'awaiting_upload' });
  return { signedUrl: upload.url, fileName, artifactId, contentType, expiresAt: upload.expiresAt.toISOString() };
}

/**
 * PUT to a local signed URL: the token must verify, match the request's content type, and its
 * artifact must still be awaiting its upload (a URL works once). The body is spooled with the
 * size limit, sniffed, then moved into the store.
 */
export async function receiveSignedUpload(ctx: Deps, token: string, contentType: string | undefined, body: Readable) {
  let claims;
  try {
    claims = verifyUploadToken(token, ctx.signingSecret);
  } catch (err) {
    if (err instanceof InvalidUploadTokenError) throw forbidden(err.reason === 'expired' ? 'This upload URL has expired' : 'This upload URL is not valid');
    throw err;
  }
  if ((contentType ?? '').split(';')[0]!.trim().toLowerCase() !== claims.contentType) {
    throw forbidden(`This upload URL is for Content-Type ${claims.contentType}`);
  }
  // Claim the artifact atomically: of two concurrent PUTs with one URL, only one proceeds.
  const claimed = await claimUpload(ctx.db, claims.artifactId, and(eq(artifacts.organizationId, claims.organizationId), eq(artifacts.storageKey, claims.key)));
  if (!claimed) {
    const [artifact] = await ctx.db.select({ status: artifacts.status }).from(artifacts).where(eq(artifacts.id, claims.artifactId));
    throw forbidden(artifact ? 'This upload URL has already been used' : GONE);
  }
  let spooled: SpooledFile | null = null;
  try {
    spooled = await spoolToTempFile(body, tmpDir(ctx), claims.maxBytes);
    assertHasContent(spooled, 'body');
    const { kind, autoCaptions } = await sniffUpload(spooled.path);
    const stored = await ctx.store.putFile(claims.key, spooled.path, { contentType: CONTENT_TYPE[kind] });
    const updated = await markUploaded(ctx.db, claimed.id, { kind, autoCaptions, size: stored.size, sha256: stored.sha256, contentType: CONTENT_TYPE[kind] });
    if (!updated) {
      // The mind was deleted while the bytes arrived (its folder may have gone before this file
      // existed): remove the file, and its folder with it.
      await ctx.store.delete(claims.key);
      throw forbidden(GONE);
    }
    return { message: 'Upload received', artifactId: claimed.id, size: stored.size, sha256: stored.sha256 };
  } catch (err) {
    // A refused body leaves the URL usable for a corrected upload until it expires.
    await abandonUpload(ctx.db, claimed.id);
    if (err instanceof PayloadTooLargeError) throw new DomainError('PAYLOAD_TOO_LARGE', err.message);
    throw err;
  } finally {
    await spooled?.remove();
  }
}

const GONE = 'This upload URL is no longer valid: its artifact or mind was deleted';

/** An artifact of this mind whose bytes are in the store (confirming an S3 presigned upload on first use). */
export async function readyArtifact(ctx: Deps, caller: Caller, mindId: string, artifactId: string): Promise<ArtifactRow> {
  const [artifact] = await ctx.db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.id, artifactId), eq(artifacts.organizationId, caller.organizationId), eq(artifacts.mindId, mindId)));
  if (!artifact) throw invalid('artifactId does not name an artifact of this mind', { field: 'artifactId' });
  if (artifact.status === 'uploaded') return artifact;
  if (artifact.status !== 'awaiting_upload') throw new DomainError('CONFLICT', 'The artifact’s upload is still being received or checked; try again in a moment', { field: 'artifactId' });
  // Local signed URLs mark the artifact uploaded themselves; an S3 presigned PUT goes straight to
  // the store, so the first use checks the object there: present, within the limit, a transcript.
  const stat = await ctx.store.stat(artifact.storageKey);
  if (!stat) throw invalid('The artifact has not been uploaded yet: PUT the file to its signed URL first', { field: 'artifactId' });
  // Claim the first use, so two requests do not confirm (and copy) one upload at once.
  const claimed = await claimUpload(ctx.db, artifactId);
  if (!claimed) return readyArtifact(ctx, caller, mindId, artifactId);
  try {
    return await confirmPresignedUpload(ctx, claimed, stat.size);
  } catch (err) {
    // Whatever was refused is gone; the URL stays usable for a corrected upload until it expires.
    // Only from `uploading`: the sweeper may have settled this attempt already.
    await abandonUpload(ctx.db, artifactId);
    throw err;
  }
}

/**
 * Checks a presigned upload (size, type by content), hashes it, and copies the checked bytes to
 * the artifact's own key, so what was checked is exactly what snapshots read; the incoming object
 * is then deleted.
 */
async function confirmPresignedUpload(ctx: Deps, artifact: ArtifactRow, size: number): Promise<ArtifactRow> {
  const max = ctx.config.maxUploadBytes;
  const tooLarge = () => new DomainError('PAYLOAD_TOO_LARGE', `The uploaded file is larger than the ${max / 1024 / 1024} MB limit`);
  if (size > max) {
    await ctx.store.delete(artifact.storageKey);
    throw tooLarge();
  }
  const finalKey = storageKey(artifact.organizationId, artifact.mindId, artifact.id);
  let checked;
  try {
    checked = await ctx.store.withLocalFile(artifact.storageKey, async (file) => {
      const kind = await sniffFile(file);
      if (!kind) return null;
      const autoCaptions = await isAutoCaptionFile(file, kind);
      // The object may have been replaced since stat(): the limit applies to the bytes read.
      return { kind, autoCaptions, stored: await ctx.store.put(finalKey, createReadStream(file), { contentType: CONTENT_TYPE[kind], maxBytes: max }) };
    });
  } catch (err) {
    if (err instanceof PayloadTooLargeError) {
      await ctx.store.delete(artifact.storageKey);
      throw tooLarge();
    }
    throw err;
  }
  if (!checked) {
    await ctx.store.delete(artifact.storageKey);
    throw invalid('Unsupported file type: the uploaded artifact is not a WebVTT, SRT, DOCX, PDF or text transcript', { field: 'artifactId' });
  }
  const { kind, autoCaptions, stored } = checked;
  const updated = await markUploaded(ctx.db, artifact.id, { kind, autoCaptions, size: stored.size, sha256: stored.sha256, contentType: CONTENT_TYPE[kind], storageKey: finalKey });
  if (!updated) {
    // The mind (and the artifact row) was deleted meanwhile: leave nothing behind.
    await Promise.all(keysOf({ ...artifact, storageKey: finalKey }).map((k) => ctx.store.delete(k)));
    throw invalid('artifactId does not name an artifact of this mind', { field: 'artifactId' });
  }
  if (artifact.storageKey !== finalKey) await ctx.store.delete(artifact.storageKey);
  return updated;
}
