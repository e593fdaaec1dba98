import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';
import { UPLOADABLE_CONTENT_TYPES } from './file-kinds.ts';
// The analysis vocabulary (psychometrics, topics, findings) belongs to the profile feature.
import { Finding, KeyTopic, MindProfile, Psychometric } from '../profile/index.ts';
export { Finding, KeyTopic, MindProfile, Psychometric };

export const SnapshotStatus = named('SnapshotProcessingStatus', Type.String({ enum: ['pending', 'processing', 'completed', 'failed'], example: 'completed' }));

/**
 * Whether the file named its speakers, and what it means for the mind when it did not. On every
 * snapshot shape (list rows, status, details, the upload answer), so no surface can hide it.
 */
const SpeakersLabelled = Nullable(
  Type.Boolean({
    description:
      'Whether the file named its speakers. `false` for auto-captions and documents without speaker labels: the one speaker “Speaker” is everyone who spoke, so the mind holds every voice of the file (interviewers, moderators, other guests too) and its simulations may quote them. Null until the snapshot is processed.',
  }),
);
const SpeakerWarning = Nullable(
  Type.String({
    description: 'Set when `speakersLabelled` is false: a sentence for people saying that every voice in the file counts as the mind. Null otherwise.',
    example: 'The file names no speakers, so every voice in this file counts as Andrew Huberman: interviewers, moderators and other guests too. Upload a transcript that labels its speakers to keep only Andrew Huberman’s words.',
  }),
);
const MindSpeaker = Nullable(Type.String({ description: 'The speaker label taken to be the mind (null until processed)', example: 'Lenny Rachitsky' }));

/**
 * Where the snapshot's semantic index stands (src/features/memory/indexer.ts): its turns are embedded in a
 * job of their own after `completed`, so simulations find them by meaning a moment later.
 */
export const SnapshotSemanticIndex = named(
  'SnapshotSemanticIndex',
  Type.Object(
    {
      status: Type.String({
        enum: ['waiting', 'indexing', 'ready', 'failed', 'none'],
        description:
          '`waiting` until the snapshot is completed; `indexing` while its turns are being embedded (or re-embedded for another embedder); `ready` once they are; `failed` when the embedder failed (`error` says why; simulations use full-text search for it meanwhile); `none` for a failed snapshot, which has nothing to index',
        example: 'ready',
      }),
      embedder: Nullable(Type.String({ description: 'The embedder its turns are embedded with (null until they are)', example: 'glove-6b-100d-sif@1' })),
      embeddedAt: Nullable(Timestamp),
      error: Nullable(Type.String({ description: 'Why the last embedding failed (null unless `failed`)' })),
    },
    { description: 'The state of the snapshot’s semantic index. `GET /minds/{mindId}/semantic-index` sums it up for the mind.' },
  ),
);

export const Snapshot = named('Snapshot', Type.Object({
  id: Uuid,
  mindId: Uuid,
  artifactId: Uuid,
  digitalTwinId: Nullable(Uuid),
  mindsetDate: Timestamp,
  status: SnapshotStatus,
  linked: Type.Boolean({ description: 'Unlinked snapshots are kept but do not feed simulations or the profile' }),
  error: Nullable(Type.String({ description: 'Why processing failed (null unless failed)' })),
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  psychometricCount: Type.Number(),
  keyTopicCount: Type.Number(),
  findingCount: Type.Number(),
  fileName: Type.String({ description: 'Name of the uploaded file', example: 'debate.vtt' }),
  mindSpeaker: MindSpeaker,
  mindWords: Type.Number({ description: 'Words of the mind’s own turns (0 until processed)' }),
  speakersLabelled: SpeakersLabelled,
  speakerWarning: SpeakerWarning,
  semanticIndex: SnapshotSemanticIndex,
}));
export type Snapshot = Static<typeof Snapshot>;

export const SnapshotStatusObject = named('SnapshotStatus', Type.Object({
  id: Uuid,
  mindId: Uuid,
  status: SnapshotStatus,
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  error: Nullable(Type.String()),
  mindSpeaker: MindSpeaker,
  speakersLabelled: SpeakersLabelled,
  speakerWarning: SpeakerWarning,
  semanticIndex: SnapshotSemanticIndex,
}));

export const Artifact = named('Artifact', Type.Object({
  id: Uuid,
  fileName: Type.String({ example: 'interview.vtt' }),
  contentType: Type.String({ example: 'text/vtt' }),
  kind: Nullable(Type.String({ enum: ['vtt', 'srt', 'docx', 'pdf', 'txt'], description: 'Detected from the bytes' })),
  size: Nullable(Type.Number()),
  sha256: Nullable(Type.String()),
}));

export const Speaker = named('Speaker', Type.Object({ label: Type.String(), turns: Type.Number(), words: Type.Number(), isMind: Type.Boolean() }));

export const TranscriptTurn = named('TranscriptTurn', Type.Object({
  id: Uuid,
  seq: Type.Number(),
  speaker: Type.String(),
  text: Type.String(),
  startMs: Nullable(Type.Number()),
  endMs: Nullable(Type.Number()),
  isMind: Type.Boolean(),
}));


export const SnapshotDetails = named('SnapshotDetails', Type.Object({
  ...Snapshot.properties,
  artifact: Artifact,
  speakers: Type.Array(Speaker),
  attribution: Nullable(Type.String({ enum: ['requested', 'name', 'inferred'], description: 'How the mind’s speaker was chosen: the `speaker` field (at upload, or PUT …/speaker), a match of the mind’s name, or the speaker with the most words' })),
  attributionNote: Nullable(
    Type.String({
      description: 'How the mind’s words were told apart from the others’, in a sentence for people (null until the snapshot is processed)',
      example: 'The file names no speakers (auto-captions, or a document without speaker labels), so every voice in it was taken to be this mind’s.',
    }),
  ),
  transcript: Type.Optional(Type.Array(TranscriptTurn)),
  psychometrics: Type.Optional(Type.Array(Psychometric)),
}));

export const SnapshotParams = Type.Object({ mindId: Uuid, snapshotId: Uuid });

export const CreateSnapshotResponse = named('SnapshotCreated', Type.Object({
  // The spec's fields, as the spec gives them.
  message: Type.String({ example: 'Snapshot created; processing has started' }),
  mindAssessmentId: Uuid,
  artifactId: Uuid,
  // Ours, beside them: what can be said of the file's speakers before it is processed.
  fileName: Type.String({ example: 'debate.vtt' }),
  fileKind: Type.String({ enum: ['vtt', 'srt', 'docx', 'pdf', 'txt'], description: 'Detected from the bytes' }),
  speaker: Nullable(Type.String({ description: 'The label the `speaker` field named in the file (matched by case, prefix or name), or what was sent when the labels could not be read in time (the processing checks it); null without `speaker`' })),
  speakersLabelled: Nullable(
    Type.Boolean({
      description:
        'Known at once only when the upload can tell without processing: `false` for an auto-caption track (a WebVTT file with word timings and no voice tags), and true/false when the upload read the labels to check `speaker`. Otherwise null: the status answer (GET …/status) says once the file is processed.',
    }),
  ),
  speakerWarning: SpeakerWarning,
}));

/** GET …/snapshots/{snapshotId}/speakers */
export const SnapshotSpeakers = named('SnapshotSpeakers', Type.Object({
  snapshotId: Uuid,
  status: SnapshotStatus,
  mindSpeaker: MindSpeaker,
  attribution: Nullable(Type.String({ enum: ['requested', 'name', 'inferred'] })),
  speakersLabelled: SpeakersLabelled,
  speakerWarning: SpeakerWarning,
  speakers: Type.Array(
    Type.Object({
      label: Type.String({ example: 'Lenny Rachitsky' }),
      turns: Nullable(Type.Number({ description: 'Null for a failed snapshot, whose labels are read from the file again' })),
      words: Nullable(Type.Number({ description: 'Null for a failed snapshot' })),
      isMind: Type.Boolean(),
      samples: Type.Array(Type.String(), { description: 'Up to three of the speaker’s lines (their first substantial turns, cut at 200 characters)' }),
    }),
    { description: 'In order of first appearance' },
  ),
}));

export const SetSpeakerBody = named('SetSpeakerRequest', Type.Object(
  {
    speaker: Type.String({ minLength: 1, maxLength: 200, description: 'A speaker label of the file: matched ignoring case, by a unique prefix ("Lenny" → "Lenny Rachitsky") or by name ("Lenny Rachitsky" → "Lenny")', example: 'Lenny' }),
  },
  // Like every other body: a misspelt field is a 400, never silently ignored.
  { additionalProperties: false },
));

export const SetSpeakerResponse = named('SpeakerSet', Type.Object({
  message: Type.String(),
  speaker: Type.String({ description: 'The label now taken to be the mind (or, for a failed snapshot whose labels could not be read in time, what was sent; processing checks it)' }),
  reprocessing: Type.Boolean({ description: 'True when the snapshot went back to `pending` to be processed again with this speaker; false when it already was the mind’s speaker' }),
  snapshot: Snapshot,
}));

/** The content types a signed upload URL may be asked for; the upload must be sent with the same one. */
export const UploadContentType = named('UploadContentType', Type.String({ enum: [...UPLOADABLE_CONTENT_TYPES], description: 'The file is recognised from its bytes whatever the type says; the type only has to be one of these', example: 'text/vtt' }));

export const SignedUrlQuery = Type.Object({
  contentType: UploadContentType,
  fileName: Type.String({ minLength: 1, maxLength: 255, example: 'interview.vtt' }),
});

export const SignedUrlResponse = named('SignedUploadUrl', Type.Object({
  signedUrl: Type.String({ description: 'PUT the raw file bytes here, with the same Content-Type, before expiresAt. Works once.' }),
  fileName: Type.String(),
  artifactId: Uuid,
  contentType: UploadContentType,
  expiresAt: Timestamp,
}));

/**
 * The multipart form of POST /minds/{mindId}/snapshots, for the document only: the route reads
 * the parts itself (the file is streamed to disk), so no validator sees this schema.
 */
export const CreateSnapshotForm = named('CreateSnapshotForm', Type.Object(
  {
    file: Type.Optional(Type.String({ format: 'binary', description: 'The transcript: WebVTT, DOCX, PDF, SRT or plain text (recognised from its bytes). Either `file` or `artifactId`.' })),
    artifactId: Type.Optional(Type.String({ format: 'uuid', description: 'An artifact uploaded through a signed URL (GET /minds/{mindId}/signed-url). Either `file` or `artifactId`.' })),
    mindsetDate: Type.Optional(Type.String({ maxLength: 100, description: 'ISO 8601 date or date-time of the assessment (default: now); a date is midnight UTC, a date-time without a zone is UTC', example: '2024-10-01T12:00:00Z' })),
    digitalTwinId: Type.Optional(Type.String({ format: 'uuid', description: 'Default: the mind’s default twin' })),
    speaker: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The speaker label that is this mind (matched ignoring case, by a unique prefix or by name)', example: 'Lenny' })),
  },
  { additionalProperties: false },
));

/** The content types PUT /uploads/{token} is documented with: those a URL can be signed for. */
export const UPLOAD_CONTENT_TYPES_DOC = [...UPLOADABLE_CONTENT_TYPES];

/** The raw bytes of PUT /uploads/{token} (read by the route as a stream, for the document only). */
export const UploadBytes = Type.String({ format: 'binary', description: 'The raw file bytes (at most MINDPRINT_MAX_UPLOAD_MB, default 50 MB; not empty)' });

export const UploadReceived = named('UploadReceived', Type.Object({ message: Type.String({ example: 'Upload received' }), artifactId: Uuid, size: Type.Number(), sha256: Type.String() }));
