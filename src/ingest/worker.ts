/**
 * Parser worker thread: receives one task at a time from the pool, parses in this thread, and
 * posts the transcript or the error (by name and message, which is all that crosses threads).
 */
import { parentPort } from 'node:worker_threads';
import { parseInThisThread } from './parse.ts';
import type { TaskRequest, TaskResponse } from './pool.ts';

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
const port = parentPort;

port.on('message', async (task: TaskRequest) => {
  let response: TaskResponse;
  try {
    const result =
      task.op === 'warm'
        ? await (await import('../snapshots/digest.ts')).warmUp()
        : task.op === 'digest'
        ? await (await import('../snapshots/digest.ts')).digestInThisThread(task.path, task.kind, task.digest!, task.opts)
        : task.op === 'labels'
        ? [...new Set((await parseInThisThread(task.path, task.kind, task.opts)).turns.map((t) => t.speaker))]
        : await parseInThisThread(task.path, task.kind, task.opts);
    response = { id: task.id, ok: true, result };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const { code, labels } = e as { code?: unknown; labels?: string[] };
    response = { id: task.id, ok: false, error: { name: e.name, message: e.message, labels, code: typeof code === 'string' ? code : undefined } };
  }
  port.postMessage(response);
});
