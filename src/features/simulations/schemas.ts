/** TypeBox schemas of simulations, messages and models: validation, OpenAPI and TS types. */
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';
import { User } from '../users/index.ts';


/** Uuid's format and example, for a UUID field with a description of its own. */
const UUID_FORMAT = { format: 'uuid', example: (Uuid as { example?: string }).example };

export const Simulation = named('Simulation', Type.Object({
  id: Uuid,
  mindId: Uuid,
  mindAssessmentId: Type.String({
    ...UUID_FORMAT,
    description: 'The snapshot the conversation answers as of (`asOfSnapshotId`), or else the newest completed, linked snapshot when it started (kept as a record if that snapshot is deleted later)',
  }),
  asOfSnapshotId: Nullable(
    Type.String({
      ...UUID_FORMAT,
      description:
        'Not in the spec (a Mindprint addition). The `snapshotId` the conversation was started with: it answers from that snapshot and earlier ones (by `mindsetDate`) only, for all its messages. null: from all linked snapshots.',
    }),
  ),
  digitalTwinId: Type.String({ ...UUID_FORMAT, description: "The mind's default digital twin, which answered" }),
  organizationId: Uuid,
  userId: Uuid,
  user: User,
  sharedWithUsers: Type.Array(User),
  title: Type.String({ example: 'What would you do about taxes?' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));
export type Simulation = Static<typeof Simulation>;

export const Evidence = named('Evidence', Type.Object({
  turnId: Uuid,
  snapshotId: Uuid,
  quote: Type.String({ description: "The person's own words, verbatim", example: 'I think we ought to make sure that the middle class gets relief.' }),
  startMs: Nullable(Type.Number({ description: 'Offset of the turn in its recording, when the transcript has times' })),
}));

export const Analysis = named('Analysis', Type.Object({
  thinking: Type.String(),
  feeling: Type.String(),
  saying: Type.String(),
  acting: Type.String(),
}));

export const AnswerWarning = named('AnswerWarning', Type.Object({
  code: Type.String({
    description:
      '`unlabelled_speakers`: some of the evidence comes from a snapshot whose file names no speakers (`speakersLabelled: false`, e.g. auto-captions), so those quotes may be another person’s words (an interviewer’s, a moderator’s, another guest’s). More codes may be added: show `message` for a code you do not know.',
    example: 'unlabelled_speakers',
  }),
  message: Type.String({
    description: 'One sentence for people, to show with the answer',
    example: '2 of the 3 quotes come from a file that names no speakers: every voice in it counts as Hillary Clinton, so they may be someone else’s words.',
  }),
  snapshotIds: Type.Optional(Type.Array(Type.String({ ...UUID_FORMAT }), { description: 'The snapshots the warning is about' })),
}, { description: 'Not in the spec (a Mindprint addition). Something to know before trusting an answer.' }));
export type AnswerWarning = Static<typeof AnswerWarning>;

const Warnings = Type.Array(AnswerWarning, {
  description:
    'Not in the spec (a Mindprint addition). What to know before trusting this answer; empty when nothing. `unlabelled_speakers`: evidence from a file that names no speakers, which may be someone else’s words.',
});

export const MessageContent = named('MessageContent', Type.Object({
  text: Type.String({
    description: 'The message text. For an assistant message: the answer; while it streams, the answer so far (saved about once a second); for a failed one, what was produced before it failed.',
  }),
  evidence: Type.Optional(Type.Array(Evidence)),
  analysis: Type.Optional(Analysis),
  model: Type.Optional(Type.String({ description: 'The model that produced the answer' })),
  warnings: Type.Optional(Warnings),
}));

export const MessageError = named('MessageError', Type.Object({
  code: Type.String({ example: 'rate_limited' }),
  message: Type.String(),
}));

export const Message = named('Message', Type.Object({
  id: Uuid,
  userId: Uuid,
  conversationId: Uuid,
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('streaming'), Type.Literal('completed'), Type.Literal('failed')], {
    description:
      'A user message is `completed`. An assistant message of a background run is `pending` until its answer is stored (`startedAt` is set once a worker takes it); one answered inside the request is `streaming` while the answer is produced, whether or not it is streamed to the client. Then `completed`, or `failed` with `errors`.',
  }),
  framework: Type.String({
    description: 'What produced the message: always `mindprint` (this service and its engines; `content.model` names the model). Other Mind Simulation Service implementations may name theirs (e.g. `react`).',
    example: 'mindprint',
  }),
  version: Type.String({ example: '0.1.0' }),
  content: Nullable(MessageContent),
  errors: Nullable(Type.Array(MessageError)),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
}));
export type Message = Static<typeof Message>;

export const SimulateBody = named('SimulateRequest', Type.Object(
  {
    scenario: Type.Object(
      {
        message: Type.String({ minLength: 1, maxLength: 8000, pattern: '\\S', description: 'What the person is asked or told', example: 'What would you do about taxes?' }),
      },
      { additionalProperties: false },
    ),
    mindId: Uuid,
    conversationId: Type.Optional(Uuid),
    stream: Type.Optional(Type.Boolean({ default: false })),
    runInBackground: Type.Optional(Type.Boolean({ default: false })),
    selectedSimulationModel: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A model id from GET /models (default: the default model, or the model the conversation uses)' })),
    snapshotId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
));
export type SimulateBody = Static<typeof SimulateBody>;

export const SimulateResponse = named('SimulationAnswer', Type.Object({
  message: Type.String({ description: 'The answer, in the first person' }),
  simulationId: Uuid,
  conversationId: Uuid,
  messageId: Uuid,
  model: Type.String({ example: 'mindprint-extractive-1' }),
  evidence: Type.Array(Evidence),
  analysis: Analysis,
  warnings: Warnings,
}));

export const QueuedResponse = named('SimulationQueued', Type.Object({
  message: Type.Literal('Simulation queued'),
  simulationId: Uuid,
  conversationId: Uuid,
  messageId: Uuid,
  status: Type.Literal('pending'),
}));

export const Model = named('Model', Type.Object({
  id: Type.String({ example: 'mindprint-extractive-1' }),
  engine: Type.Union([Type.Literal('extractive'), Type.Literal('llm')]),
  streams: Type.Boolean(),
  default: Type.Boolean(),
}));

export const SimulationParams = Type.Object({ simulationId: Uuid });
export const UnshareParams = Type.Object({ simulationId: Uuid, userId: Uuid });

export const ListSimulationsQuery = Type.Object(
  {
    mindId: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
export type ListSimulationsQuery = Static<typeof ListSimulationsQuery>;

export const ShareBody = named('ShareSimulationRequest', Type.Object(
  {
    userIds: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
    emails: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 320 }), { maxItems: 100 })),
  },
  { additionalProperties: false, minProperties: 1 },
));
export type ShareBody = Static<typeof ShareBody>;
