import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.ts';

export const SnapshotStatus = Type.String({ enum: ['pending', 'processing', 'completed', 'failed'], example: 'completed' });

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

export const Snapshot = Type.Object({
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
});
export type Snapshot = Static<typeof Snapshot>;

export const SnapshotStatusObject = Type.Object({
  id: Uuid,
  mindId: Uuid,
  status: SnapshotStatus,
  startedAt: Nullable(Timestamp),
  completedAt: Nullable(Timestamp),
  error: Nullable(Type.String()),
  mindSpeaker: MindSpeaker,
  speakersLabelled: SpeakersLabelled,
  speakerWarning: SpeakerWarning,
});

export const Artifact = Type.Object({
  id: Uuid,
  fileName: Type.String({ example: 'interview.vtt' }),
  contentType: Type.String({ example: 'text/vtt' }),
  kind: Nullable(Type.String({ enum: ['vtt', 'srt', 'docx', 'pdf', 'txt'], description: 'Detected from the bytes' })),
  size: Nullable(Type.Number()),
  sha256: Nullable(Type.String()),
});

export const Speaker = Type.Object({ label: Type.String(), turns: Type.Number(), words: Type.Number(), isMind: Type.Boolean() });

export const TranscriptTurn = Type.Object({
  id: Uuid,
  seq: Type.Number(),
  speaker: Type.String(),
  text: Type.String(),
  startMs: Nullable(Type.Number()),
  endMs: Nullable(Type.Number()),
  isMind: Type.Boolean(),
});

const Evidence = Type.Object({ turnId: Uuid, quote: Type.String(), startMs: Nullable(Type.Number()) });

export const Psychometric = Type.Object({
  id: Uuid,
  snapshotId: Uuid,
  mindId: Uuid,
  instrument: Type.String({ example: 'big_five', description: 'big_five | communication_style | emotion | ipip-bfm-50 (with an LLM: the IPIP Big-Five markers answered in character, src/analysis/README.md)' }),
  name: Type.String({ example: 'openness' }),
  score: Nullable(Type.Number({ description: '0–1 (null when there is too little text)' })),
  percentile: Nullable(Type.Number({ description: 'Against the norm corpus (Big Five only)' })),
  confidence: Type.Number({ description: '0–1; grows with the number of the mind’s words (Big Five: × the model’s held-out skill)' }),
  note: Nullable(Type.String()),
  evidence: Type.Array(Evidence),
});

export const KeyTopic = Type.Object({
  id: Uuid,
  snapshotId: Uuid,
  mindId: Uuid,
  label: Type.String({ example: 'health care' }),
  keywords: Type.Array(Type.String()),
  share: Type.Number({ description: 'Fraction of the mind’s words on this topic' }),
  sentiment: Type.Number({ description: '−1 (negative) to 1 (positive)' }),
  evidence: Type.Array(Evidence),
});

export const Finding = Type.Object({
  id: Uuid,
  snapshotId: Uuid,
  mindId: Uuid,
  kind: Type.String({ enum: ['belief', 'preference', 'value', 'goal', 'habit', 'experience', 'fact'] }),
  statement: Type.String(),
  quote: Type.String(),
  turnId: Uuid,
  startMs: Nullable(Type.Number()),
  polarity: Type.String({ enum: ['positive', 'negative', 'neutral'] }),
  confidence: Type.Number(),
});

/** GET /minds/{mindId}/profile: analysis/profile.ts `MindProfile` (definitions in src/analysis/README.md). */
const ProfileEvidence = Type.Object({ ...Evidence.properties, snapshotId: Uuid });
export const MindProfile = Type.Object({
  asOf: Nullable(Timestamp),
  snapshotCount: Type.Number(),
  mindWords: Type.Number(),
  traits: Type.Array(
    Type.Object({
      instrument: Type.String({ example: 'big_five' }),
      name: Type.String({ example: 'openness' }),
      score: Nullable(Type.Number({ description: 'Weighted by words and recency (Big Five: the snapshots’ values pooled over all their words)' })),
      percentile: Nullable(Type.Number({ description: 'Big Five: the pooled value’s rank among the norm corpus of real speakers' })),
      confidence: Type.Number(),
      snapshots: Type.Number({ description: 'Snapshots that contributed a score' }),
      words: Type.Number({ description: 'Words of the snapshots that contributed a score' }),
      note: Nullable(Type.String({ description: 'How far to trust the aggregate (Big Five): words over all snapshots, the measurement band, the model’s held-out skill' })),
    }),
  ),
  style: Type.Record(Type.String(), Nullable(Type.Number()), { description: 'Communication-style measures by name' }),
  keyTopics: Type.Array(
    Type.Object({
      label: Type.String(),
      keywords: Type.Array(Type.String()),
      share: Type.Number(),
      sentiment: Type.Number(),
      snapshots: Type.Number({ description: 'Snapshots whose topics were merged into this one' }),
      evidence: Type.Array(ProfileEvidence),
    }),
  ),
  findings: Type.Array(
    Type.Object({
      ...Type.Omit(Finding, ['id', 'snapshotId', 'mindId']).properties,
      snapshotId: Uuid,
      mindsetDate: Timestamp,
    }),
  ),
  trajectories: Type.Array(
    Type.Object({
      instrument: Type.String(),
      name: Type.String(),
      points: Type.Array(
        Type.Object({
          snapshotId: Uuid,
          mindsetDate: Timestamp,
          score: Nullable(Type.Number()),
          percentile: Nullable(Type.Number()),
          confidence: Type.Number(),
          mindWords: Type.Number(),
          low: Nullable(Type.Number({ description: 'Big Five: lower end of the score’s 95 % measurement band at this snapshot’s words' })),
          high: Nullable(Type.Number({ description: 'Big Five: upper end of that band' })),
        }),
        { description: 'Oldest first' },
      ),
      change: Nullable(
        Type.Object(
          {
            from: Type.Number(),
            to: Type.Number(),
            exceedsNoise: Type.Boolean({ description: 'The change between the oldest and newest scored snapshot exceeds the measurement noise (95 %)' }),
            note: Type.String(),
          },
          { description: 'Big Five with two or more scored snapshots; null otherwise' },
        ),
      ),
    }),
  ),
});

export const SnapshotDetails = Type.Object({
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
});

export const SnapshotParams = Type.Object({ mindId: Uuid, snapshotId: Uuid });

export const CreateSnapshotResponse = Type.Object({
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
});

/** GET …/snapshots/{snapshotId}/speakers */
export const SnapshotSpeakers = Type.Object({
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
});

export const SetSpeakerBody = Type.Object({
  speaker: Type.String({ minLength: 1, maxLength: 200, description: 'A speaker label of the file: matched ignoring case, by a unique prefix ("Lenny" → "Lenny Rachitsky") or by name ("Lenny Rachitsky" → "Lenny")', example: 'Lenny' }),
});

export const SetSpeakerResponse = Type.Object({
  message: Type.String(),
  speaker: Type.String({ description: 'The label now taken to be the mind (or, for a failed snapshot whose labels could not be read in time, what was sent; processing checks it)' }),
  reprocessing: Type.Boolean({ description: 'True when the snapshot went back to `pending` to be processed again with this speaker; false when it already was the mind’s speaker' }),
  snapshot: Snapshot,
});

export const SignedUrlQuery = Type.Object({
  contentType: Type.String({ minLength: 1, maxLength: 200, example: 'text/vtt' }),
  fileName: Type.String({ minLength: 1, maxLength: 255, example: 'interview.vtt' }),
});

export const SignedUrlResponse = Type.Object({
  signedUrl: Type.String({ description: 'PUT the raw file bytes here, with the same Content-Type, before expiresAt. Works once.' }),
  fileName: Type.String(),
  artifactId: Uuid,
  contentType: Type.String(),
  expiresAt: Timestamp,
});
