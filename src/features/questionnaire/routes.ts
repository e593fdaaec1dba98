/**
 * POST /minds/{mindId}/snapshots/{snapshotId}/questionnaire: answer the questionnaire again for a
 * snapshot (after a change of model, after a provider outage outlasted the job's retries, or for
 * a snapshot processed before an LLM was configured). It runs in the background like the one
 * after processing, and replaces the snapshot's `ipip-bfm-50` rows when it is done.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import { conflict } from '../../platform/errors.ts';
import { errorResponses, named, Uuid } from '../../platform/http/schemas.ts';
import { QUEUE } from '../../platform/jobs/queues.ts';
import { SnapshotParams } from '../snapshots/index.ts';
import { getSnapshotRow } from '../snapshots/index.ts';
import { ipipBfm50 } from '../../lib/analysis/questionnaire.ts';
import { questionnaireModel, queueQuestionnaire } from './job.ts';

export const QuestionnaireQueued = named('QuestionnaireQueued', Type.Object({
  snapshotId: Uuid,
  instrument: Type.String({ example: 'ipip-bfm-50', description: 'The psychometrics instrument the answers are stored under' }),
  model: Type.String({ description: 'The LLM that answers in character' }),
  queued: Type.Boolean({ example: true, description: 'True when this request queued a run; false when it joined the run already waiting or running for the snapshot (at most one at a time: asking again pays the provider nothing more)' }),
  run: Type.Union([Type.Literal('queued'), Type.Literal('waiting'), Type.Literal('running')], {
    example: 'queued',
    description: 'The run whose answers will replace the snapshot’s rows: `queued` by this request, or one that was already `waiting` to start or `running`',
  }),
}));

export const questionnaireRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post('/minds/:mindId/snapshots/:snapshotId/questionnaire', {
    schema: {
      tags: ['Analysis'],
      operationId: 'runQuestionnaire',
      summary: 'Answer the questionnaire for a snapshot again',
      description:
        'With an LLM configured, each completed snapshot gets questionnaire psychometrics: the LLM answers the 50-item IPIP Big-Five Factor Markers in character, from the snapshot’s own words, and the answers are scored with the published key (instrument `ipip-bfm-50`, beside the text model’s `big_five`). This queues that run again; its rows replace the snapshot’s previous ones when it is done. At most one run per snapshot at a time: asking while a run is waiting or running is also a 202, naming that run (`queued: false`, `run: waiting | running`), and asks the provider nothing more, so a retried or repeated request is safe. Ask again after it is done for a fresh run. 409 when no LLM is configured (or MINDPRINT_LLM_QUESTIONNAIRE=false) or the snapshot has not completed.',
      params: SnapshotParams,
      response: { 202: QuestionnaireQueued, ...errorResponses(404, 409) },
    },
  }, async (req, reply) => {
    const s = await getSnapshotRow(deps.db, req.caller, req.params.mindId, req.params.snapshotId);
    const model = questionnaireModel(deps.config);
    if (!deps.config.questionnaire || !model) throw conflict('No LLM answers questionnaires here: set MINDPRINT_LLM_MODEL (and leave MINDPRINT_LLM_QUESTIONNAIRE on)');
    if (s.status !== 'completed') throw conflict(`The snapshot is ${s.status}: the questionnaire is answered once it has completed`);
    const run = await deps.db.transaction((tx) => queueQuestionnaire(tx, deps, { id: s.id, organizationId: req.caller.organizationId }));
    // Checked above; only a configuration changed under a running process could leave nothing queued.
    if (!run) throw conflict('No LLM answers questionnaires here');
    if (run === 'queued') deps.queue.wake(QUEUE.questionnaire);
    return reply.code(202).send({ snapshotId: s.id, instrument: ipipBfm50().id, model, queued: run === 'queued', run });
  });
};
