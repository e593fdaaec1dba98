/**
 * Spools an incoming byte stream to a temporary file while counting and hashing it, so the
 * content can be sniffed before anything reaches the artifact store. The size limit is enforced
 * as the bytes arrive; nothing is buffered whole.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '../../deps.ts';
import { DomainError } from '../../platform/errors.ts';

/** Where uploads are spooled (the temp file sweeper empties what a killed process left there). */
export const tmpDir = (ctx: Pick<Deps, 'config'>) => path.join(ctx.config.dataDir, 'tmp');

export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
  /** Nothing but ASCII whitespace (after an optional UTF-8 byte order mark), or no bytes at all. */
  blank: boolean;
  remove(): Promise<void>;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];
/** Tab, line feed, vertical tab, form feed, carriage return, space. */
const isAsciiSpace = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d);

/**
 * An empty or whitespace-only file has no transcript in it: a 400 at once, before anything is
 * stored or queued, instead of a snapshot that fails later.
 */
export function assertHasContent(file: Pick<SpooledFile, 'size' | 'blank'>, field = 'file'): void {
  if (file.size === 0) throw new DomainError('VALIDATION_FAILED', 'The file is empty (0 bytes): there is no transcript in it', { field });
  if (file.blank) throw new DomainError('VALIDATION_FAILED', `The file contains only whitespace (${file.size} bytes): there is no transcript in it`, { field });
}

export async function spoolToTempFile(source: Readable, tmpDir: string, maxBytes: number): Promise<SpooledFile> {
  await mkdir(tmpDir, { recursive: true });
  const file = path.join(tmpDir, `upload-${randomUUID()}`);
  const hash = createHash('sha256');
  let size = 0;
  // Whether every byte so far is whitespace (or the leading byte order mark): checked until the
  // first byte that is not, so a real transcript costs a few bytes of scanning.
  let blank = true;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const offset = size;
      size += chunk.length;
      if (size > maxBytes) return done(new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB limit`));
      for (let i = 0; blank && i < chunk.length; i++) {
        const at = offset + i;
        const b = chunk[i]!;
        if (!isAsciiSpace(b) && !(at < 3 && b === UTF8_BOM[at])) blank = false;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const remove = () => rm(file, { force: true });
  try {
    await pipeline(source, meter, createWriteStream(file));
  } catch (err) {
    await remove();
    throw err;
  }
  return { path: file, size, sha256: hash.digest('hex'), blank, remove };
}
