/**
 * POST /minds/{mindId}/snapshots/{snapshotId}/questionnaire: answer the questionnaire again for a
 * snapshot (after a change of model, after a provider outage outlasted the job's retries, or for
 * a snapshot processed before an LLM was configured). It runs in the background like the one
 * after processing, and replaces the snapshot's `ipip-bfm-50` rows when it is done.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { SnapshotParams } from '../snapshots/index.ts';
import { QuestionnaireQueued } from './schemas.ts';
import { askAgain } from './service.ts';

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
  }, async (req, reply) => reply.code(202).send(await askAgain(deps, req.caller, req.params)));
};
