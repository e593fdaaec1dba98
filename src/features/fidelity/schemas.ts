/** GET /minds/{mindId}/fidelity: how faithfully the mind answers, measured on its own conversations. */
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

const Share = (description: string, example: number) => Nullable(Type.Number({ minimum: 0, maximum: 1, description, example }));

export const FidelityExample = named('FidelityExample', Type.Object({
  question: Type.String({ description: 'What another speaker asked the person in a held-out conversation', example: 'What are the major differences between the two of you about how you would go about creating new jobs?' }),
  real: Type.String({ description: 'What the person really answered (cut at 600 characters)', example: 'Well, thank you very much, Jim, for this opportunity…' }),
  simulated: Type.String({ description: 'What the mind built from the other conversations answered (cut at 600 characters)', example: 'We have begun to fight back…' }),
  snapshotId: Uuid,
  specificity: Share('This answer’s specificity: the share of the person’s other real answers in that conversation it is less close to than to its own', 0.8),
}));

export const MindFidelity = named('MindFidelity', Type.Object({
  mindId: Uuid,
  status: Type.String({
    enum: ['pending', 'ready', 'insufficient'],
    description:
      'pending: a check of the mind’s current memory is waiting or running (after a snapshot changed; the numbers, if any, are those of the previous check, `current: false`). ready: measured on the current memory. insufficient: too little to hold out (`reason` says why).',
    example: 'ready',
  }),
  current: Type.Boolean({ description: 'Whether the numbers below were computed on the mind’s current memory (false while a recomputation is pending)', example: true }),
  reason: Nullable(Type.String({ description: 'Why there is too little to check (status insufficient); else null', example: 'One conversation with 12 turns of the person: a fidelity check needs a second conversation, or one of at least 40 turns of theirs to split in time.' })),
  summary: Type.String({ description: 'The result in one plain sentence (what the dashboard’s trust line says)', example: 'Moderate fidelity: asked 32 questions from its own 2 conversations, each held out in turn, the mind’s answer was closer to the person’s real answer than to their other answers 68% of the time (50% is chance); it declined 3%.' }),
  computedAt: Nullable(Timestamp),
  engine: Nullable(Type.String({ description: 'The model that answered (the embedded extractive engine)', example: 'mindprint-extractive-1' })),
  embedder: Nullable(Type.String({ description: 'The embedder of the semantic memory it searched', example: 'glove-6b-100d-sif@1' })),
  conversations: Type.Integer({ minimum: 0, description: 'Conversations (or halves of one long conversation) held out in turn', example: 2 }),
  questions: Type.Integer({ minimum: 0, description: 'Questions put to the held-out minds (n; at most 40, sampled the same way every time)', example: 32 }),
  specificity: Share('Specificity AUC: how often a simulated answer is closer (TF-IDF cosine over the person’s words) to the person’s real answer than to their other real answers in the same conversation; 0.5 is chance', 0.68),
  beyondQuestion: Share('The same with the question’s own words removed from every text: what the answer adds beyond echoing the question', 0.63),
  abstentionRate: Share('Share of questions the mind declined (an answer with no evidence)', 0.03),
  medianSourceTurns: Nullable(Type.Number({ minimum: 0, description: 'Median number of the person’s turns an answer quotes', example: 1 })),
  examples: Type.Array(FidelityExample, { description: 'Two typical questions (specificity nearest the mean, not the best) with the real and the simulated answer' }),
}));
export type MindFidelity = Static<typeof MindFidelity>;
