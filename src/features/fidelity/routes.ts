import type { Routes } from '../../deps.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { MindParams } from '../minds/index.ts';
import { MindFidelity } from './schemas.ts';
import { getMindFidelity } from './service.ts';

export const fidelityRoutes: Routes = async (app, { deps: ctx }) => {
  app.get('/minds/:mindId/fidelity', {
    schema: {
      tags: ['Analysis'],
      operationId: 'getMindFidelity',
      summary: 'Fidelity check of a mind',
      description:
        'How faithfully the mind answers, measured on its own conversations: each is held out in turn (one long conversation alone is split in time), the questions asked in it are put to a mind built from the rest, and the answers are compared with what the person really said. ' +
        'Computed in the background after the mind’s snapshots change (at most one check per mind waiting), never in the request: `status` is `pending` until it is done, `ready`, or `insufficient` with the `reason` when there is too little to hold out (200 in every case).',
      params: MindParams,
      response: { 200: MindFidelity, ...errorResponses(404) },
    },
  }, async (req) => getMindFidelity(ctx, req.caller, req.params.mindId));
};
