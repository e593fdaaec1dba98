/** Answering the questionnaire for a snapshot again, on request (routes.ts); the run itself is job.ts. */
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../platform/auth/authenticate.ts';
import { conflict } from '../../platform/errors.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { ipipBfm50 } from '../../lib/analysis/questionnaire.ts';
import { getSnapshotRow } from '../snapshots/index.ts';
import { questionnaireModel, queueQuestionnaire } from './job.ts';
import type { QuestionnaireQueued } from './schemas.ts';

/** Queues a run for a completed snapshot, or names the run already waiting or running (at most one at a time). */
export async function askAgain(deps: Pick<Deps, 'db' | 'config' | 'queue'>, caller: Caller, { mindId, snapshotId }: { mindId: string; snapshotId: string }): Promise<QuestionnaireQueued> {
  const s = await getSnapshotRow(deps.db, caller, mindId, snapshotId);
  const model = questionnaireModel(deps.config);
  if (!deps.config.questionnaire || !model) throw conflict('No LLM answers questionnaires here: set MINDPRINT_LLM_MODEL (and leave MINDPRINT_LLM_QUESTIONNAIRE on)');
  if (s.status !== 'completed') throw conflict(`The snapshot is ${s.status}: the questionnaire is answered once it has completed`);
  const run = await deps.db.transaction((tx) => queueQuestionnaire(tx, deps, { id: s.id, organizationId: caller.organizationId }));
  // Checked above; only a configuration changed under a running process could leave nothing queued.
  if (!run) throw conflict('No LLM answers questionnaires here');
  if (run === 'queued') deps.queue.wake(QUEUE.questionnaire);
  return { snapshotId: s.id, instrument: ipipBfm50().id, model, queued: run === 'queued', run };
}
