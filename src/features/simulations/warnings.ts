/** What to know about an answer before trusting it (AnswerWarning of schemas.ts). */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import type { Evidence } from '../../engines/types.ts';
import type { AnswerWarning } from './schemas.ts';

/**
 * The warnings of an answer: evidence quoted from a snapshot whose file names no speakers (its
 * `speakersLabelled` is false) may be anyone's words in that file, and whoever reads the answer
 * must be told so with it — not only at upload.
 */
export async function answerWarnings(db: Db, organizationId: string, mindName: string, evidence: readonly Evidence[]): Promise<AnswerWarning[]> {
  const ids = [...new Set(evidence.map((e) => e.snapshotId))];
  if (!ids.length) return [];
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`select s.id from snapshots s where s.organization_id = ${organizationId} and s.speakers_labelled is false
      and s.id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`),
  );
  if (!rows.length) return [];
  const unlabelled = new Set(rows.map((r) => r.id));
  return [unlabelledWarning(mindName, evidence.filter((e) => unlabelled.has(e.snapshotId)).length, evidence.length, ids.filter((id) => unlabelled.has(id)))];
}

/** The `unlabelled_speakers` warning: `quoted` of the answer's `total` quotes come from `snapshotIds`. */
export function unlabelledWarning(mindName: string, quoted: number, total: number, snapshotIds: string[]): AnswerWarning {
  const files = snapshotIds.length === 1 ? 'a file that names no speakers' : 'files that name no speakers';
  const which = quoted === total ? (total === 1 ? 'The quote comes' : `All ${total} quotes come`) : `${quoted} of the ${total} quotes come`;
  return {
    code: 'unlabelled_speakers',
    message: `${which} from ${files} (auto-captions or an unlabelled transcript): every voice in ${snapshotIds.length === 1 ? 'it' : 'them'} counts as ${mindName}, so ${quoted === 1 ? 'it' : 'they'} may be someone else’s words — an interviewer’s, a moderator’s or another guest’s.`,
    snapshotIds,
  };
}
