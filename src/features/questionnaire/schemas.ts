/** TypeBox schemas of the questionnaire's route: validation, OpenAPI and TS types. */
import { Type, type Static } from 'typebox';
import { named, Uuid } from '../../platform/http/schemas.ts';

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
export type QuestionnaireQueued = Static<typeof QuestionnaireQueued>;
