/**
 * Parser child process (parser-processes.ts forks it): receives one task at a time over IPC, parses in this
 * process, and sends back the result or the error (by name, message and code, which is all that
 * crosses). A process, not a thread: its whole memory (JS heap, buffers, pdf.js, WASM) is its
 * own, so the pool can cap it (--max-old-space-size and an RSS watchdog) and kill it without
 * touching the service, and everything it allocated is given back when it ends.
 */
import { parseInThisThread } from '../../lib/ingest/parse.ts';
import type { TaskRequest, TaskResponse } from './parser-protocol.ts';

if (!process.send) throw new Error('child.ts must run as a child process with an IPC channel');
const send = process.send.bind(process);

process.on('message', (task: TaskRequest) => void run(task));
// The parent went away (crash, SIGKILL): nobody will read a result, so do not linger.
process.on('disconnect', () => process.exit(0));
// Started and the parsers loaded: a budget that should not include start-up can begin now.
send({ ready: true });

async function run(task: TaskRequest): Promise<void> {
  let response: TaskResponse;
  try {
    const result =
      task.op === 'warm'
        ? await (await import('./digest.ts')).warmUp()
        : task.op === 'digest' && task.turnsFile
        ? await (await import('./digest.ts')).digestToFile(task.path, task.kind, task.digest!, task.turnsFile, task.opts)
        : task.op === 'digest'
        ? await (await import('./digest.ts')).digestInThisThread(task.path, task.kind, task.digest!, task.opts)
        : task.op === 'labels'
        ? [...new Set((await parseInThisThread(task.path, task.kind, task.opts)).turns.map((t) => t.speaker))]
        : await parseInThisThread(task.path, task.kind, task.opts);
    response = { id: task.id, ok: true, result };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const { code, labels, limit } = e as { code?: unknown; labels?: string[]; limit?: string };
    response = { id: task.id, ok: false, error: { name: e.name, message: e.message, labels, limit, code: typeof code === 'string' ? code : undefined } };
  }
  send(response);
}
