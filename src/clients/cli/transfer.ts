/**
 * `mindprint export --mind <mindId|name> > mind.json` and `mindprint import mind.json`: a mind
 * and its memory bank as a bundle (format mindprint.mind.v1), streamed from one server to a
 * file and from the file into a new mind on any server.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError, clientFromEnv, describeError } from './env.ts';
import { resolveMind } from './minds.ts';

export interface ExportOptions {
  mind: string;
  artifacts?: boolean;
  output?: string;
}

export interface ImportOptions {
  json?: boolean;
}

export async function runExport(opts: ExportOptions, env: NodeJS.ProcessEnv = process.env, stdout: NodeJS.WriteStream = process.stdout): Promise<number> {
  if (!opts.output && stdout.isTTY) throw new CliError('the bundle is JSON for a file: redirect it (mindprint export --mind … > mind.json) or pass --output <file>');
  const client = clientFromEnv(env);
  let res: Response;
  let name: string;
  try {
    const { mind } = await resolveMind(client, opts.mind);
    name = mind.name;
    res = await client.exportMindResponse(mind.id, { artifacts: Boolean(opts.artifacts) });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, client.baseUrl));
  }
  if (!res.body) throw new CliError('the service answered without a body');
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  if (!opts.output) {
    // Not closed when done: stdout stays the process's.
    await pipeline(body, new Writable({ write: (chunk, _enc, cb) => (stdout.write(chunk) ? cb() : stdout.once('drain', () => cb())) }));
  } else {
    // A file appears whole or not at all: written beside it, then renamed.
    const partial = `${opts.output}.partial`;
    try {
      await pipeline(body, createWriteStream(partial));
      await rename(partial, opts.output);
    } catch (err) {
      await rm(partial, { force: true });
      throw new CliError(`the export of "${name}" was cut short: ${err instanceof Error ? err.message : String(err)}`);
    }
    process.stderr.write(`Exported "${name}" to ${opts.output}\n`);
  }
  return 0;
}

export async function runImport(file: string, opts: ImportOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = file === '-' ? await readStdin() : await readFile(file);
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const client = clientFromEnv(env);
  try {
    const imported = await client.importMind(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (opts.json) process.stdout.write(`${JSON.stringify(imported)}\n`);
    else {
      process.stdout.write(
        `Imported "${imported.name}" as ${imported.mindId} (${imported.slug}): ${imported.snapshots} snapshots, ${imported.turns} turns, ` +
          `${imported.psychometrics} psychometrics, ${imported.keyTopics} key topics, ${imported.findings} findings, ${imported.artifacts} original files; ` +
          `semantic index ${imported.semanticIndex.status} (${imported.semanticIndex.embedder})\n`,
      );
    }
    return 0;
  } catch (err) {
    throw new CliError(describeError(err, client.baseUrl));
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
