/**
 * A streamed answer's text so far, stored as it grows (throttled) while the assistant message is
 * `streaming`, so readers of the conversation see it — and a failed run keeps what was said.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import type { RunServices } from './run.ts';

/** While an answer streams, its text so far is stored at most this often, so readers of the conversation see it grow. */
export const PARTIAL_SAVE_MS = 1000;

/** Stores the streamed text so far (throttled; the last save wins, and never after the message ended). */
export function partialSaver(db: Db, messageId: string, log?: RunServices['log']): { add(text: string): void; text(): string; flush(): Promise<void> } {
  let text = '';
  let saved = '';
  let last = Date.now();
  let pending: Promise<void> = Promise.resolve();
  const save = () => {
    if (text === saved) return;
    const snapshot = text;
    saved = snapshot;
    pending = pending
      .then(() => db.execute(sql`update messages set content = ${JSON.stringify({ text: snapshot })}::jsonb, updated_at = now() where id = ${messageId} and status = 'streaming'`))
      .then(
        () => undefined,
        (err: unknown) => log?.error({ err, messageId }, 'could not store the partial answer'),
      );
  };
  return {
    add(piece) {
      text += piece;
      if (Date.now() - last >= PARTIAL_SAVE_MS) {
        last = Date.now();
        save();
      }
    },
    text: () => text,
    flush: () => pending,
  };
}
