/**
 * The hand-over of a digest's turns from the parser process to the snapshot job: the parser
 * writes them to a file under the data dir's tmp as NDJSON (one JSON turn per line, in order) and
 * the job inserts them batch by batch as it reads, so neither an IPC message nor the service's
 * memory ever holds all the turns of a large transcript (a 40 MB transcript has ~106,000).
 *
 * The job owns the file: it removes it once stored, and on every failure; a killed service leaves
 * it to the temp file sweeper (sweepTempFiles, platform/storage/local-store.ts: `digest-<uuid>.ndjson`).
 * The job opens the file as soon as the parser has written it, so a sweeper that removes it
 * later (a very long store is older than the sweeper's bound) cannot take it from the reader.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { DigestedTurn } from './digest.ts';

/** Turns per write of the parser (one write of their lines). */
const TURNS_PER_WRITE = 500;

/** The turns as NDJSON into `file`, created or replaced (a retried task starts afresh). */
export async function writeTurns(file: string, turns: readonly DigestedTurn[]): Promise<void> {
  const fh = await open(file, 'w');
  try {
    for (let i = 0; i < turns.length; i += TURNS_PER_WRITE) {
      // JSON.stringify escapes line breaks inside strings (and lone surrogates, which JSON.parse
      // restores), so each line is exactly one turn.
      let lines = '';
      for (const t of turns.slice(i, i + TURNS_PER_WRITE)) lines += JSON.stringify(t) + '\n';
      const chunk = Buffer.from(lines, 'utf8');
      for (let offset = 0; offset < chunk.length; ) offset += (await fh.write(chunk, offset)).bytesWritten;
    }
  } finally {
    await fh.close();
  }
}

/** One digest's turns file, from naming it to removing it. */
export class TurnsFile {
  readonly path: string;
  private fh: FileHandle | null = null;

  constructor(readonly dir: string) {
    this.path = path.join(dir, `digest-${randomUUID()}.ndjson`);
  }

  /** Makes its directory; the path to give the parser. */
  async prepare(): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    return this.path;
  }

  /** Opens the written file for reading (see the module comment: do it at once). */
  async open(): Promise<void> {
    this.fh ??= await open(this.path, 'r');
  }

  /** The turns, in order, `size` at a time; read as they are consumed. */
  async *batches(size: number): AsyncGenerator<DigestedTurn[]> {
    await this.open();
    let batch: DigestedTurn[] = [];
    for await (const line of this.fh!.readLines({ start: 0, autoClose: false, encoding: 'utf8' })) {
      if (line === '') continue;
      batch.push(JSON.parse(line) as DigestedTurn);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Closes and deletes the file; nothing if it was never written. */
  async remove(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }
}
