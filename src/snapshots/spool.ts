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
import { AppError } from '../http/errors.ts';

export interface SpooledFile {
  path: string;
  size: number;
  sha256: string;
  remove(): Promise<void>;
}

export async function spoolToTempFile(source: Readable, tmpDir: string, maxBytes: number): Promise<SpooledFile> {
  await mkdir(tmpDir, { recursive: true });
  const file = path.join(tmpDir, `upload-${randomUUID()}`);
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB limit`));
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
  return { path: file, size, sha256: hash.digest('hex'), remove };
}
