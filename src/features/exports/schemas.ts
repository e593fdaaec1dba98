/**
 * The mind bundle, format `mindprint.mind.v1`: one mind with its tags, its completed snapshots
 * (metadata, speaker turns, psychometrics, key topics, findings), the name of the embedder its
 * semantic index was built with (vectors are not shipped: import rebuilds them), and, when asked
 * for, the original files. Ids in a bundle are local to the file ("s1", "t17"): they only tie
 * evidence and findings to turns and files to snapshots; import gives everything new ids.
 */
import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

/** The format this server writes and reads. */
export const BUNDLE_FORMAT = 'mindprint.mind.v1';
/** The media type of a bundle (JSON). */
export const BUNDLE_MEDIA_TYPE = 'application/vnd.mindprint.mind+json';

const LocalId = (example: string, description: string) => Type.String({ minLength: 1, maxLength: 100, example, description });
const TurnRef = LocalId('t17', 'The local id of a turn of this bundle');
const Score = Type.Number();

export const BundleMind = named('MindBundleMind', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', example: 'Ada Lovelace' }),
    email: Nullable(Type.String({ maxLength: 320, example: 'ada@example.com' })),
    imageUrl: Nullable(Type.String({ maxLength: 2048, example: 'https://example.com/ada.png' })),
    socialMedia: Nullable(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 50 })),
    isSelf: Type.Boolean(),
    createdAt: Nullable(Timestamp),
  },
  { additionalProperties: false, description: 'The mind as it was exported; import creates a new mind (a new id and, if the name is taken, a new slug)' },
));

const BundleEvidence = named('MindBundleEvidence', Type.Object(
  { turnId: TurnRef, quote: Type.String({ maxLength: 100_000 }), startMs: Nullable(Type.Integer()) },
  { additionalProperties: false },
));

export const BundleTurn = named('MindBundleTurn', Type.Object(
  {
    id: LocalId('t17', 'Local id: evidence and findings refer to it'),
    seq: Type.Integer({ minimum: 0, maximum: 2_000_000_000 }),
    speaker: Type.String({ maxLength: 1000 }),
    text: Type.String(),
    startMs: Nullable(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
    endMs: Nullable(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
    isMind: Type.Boolean(),
    context: Nullable(Type.String()),
    replyWords: Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  },
  { additionalProperties: false },
));

const BundlePsychometric = named('MindBundlePsychometric', Type.Object(
  {
    instrument: Type.String({ enum: ['big_five', 'communication_style', 'emotion', 'ipip-bfm-50'] }),
    name: Type.String({ maxLength: 200 }),
    score: Nullable(Score),
    percentile: Nullable(Score),
    confidence: Score,
    note: Nullable(Type.String()),
    evidence: Type.Array(BundleEvidence),
  },
  { additionalProperties: false },
));

const BundleTopic = named('MindBundleTopic', Type.Object(
  {
    rank: Type.Integer({ minimum: 0, maximum: 100_000 }),
    label: Type.String({ maxLength: 1000 }),
    keywords: Type.Array(Type.String({ maxLength: 1000 })),
    share: Score,
    sentiment: Score,
    evidence: Type.Array(BundleEvidence),
  },
  { additionalProperties: false },
));

const BundleFinding = named('MindBundleFinding', Type.Object(
  {
    kind: Type.String({ enum: ['belief', 'preference', 'value', 'goal', 'habit', 'experience', 'fact'] }),
    statement: Type.String(),
    quote: Type.String(),
    turnId: TurnRef,
    startMs: Nullable(Type.Integer()),
    polarity: Type.String({ enum: ['positive', 'negative', 'neutral'] }),
    confidence: Score,
  },
  { additionalProperties: false },
));

const FileKind = Type.String({ enum: ['vtt', 'srt', 'docx', 'pdf', 'txt'] });

const BundleFile = named('MindBundleFile', Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 1000, example: 'debate.vtt' }),
    kind: Nullable(FileKind),
    contentType: Type.String({ maxLength: 200, example: 'text/vtt' }),
    size: Nullable(Type.Integer({ minimum: 0 })),
    sha256: Nullable(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    autoCaptions: Type.Boolean(),
  },
  { additionalProperties: false, description: 'The original file as it was uploaded (its bytes are in `artifacts` when the export asked for them)' },
));

const BundleSpeaker = Type.Object(
  { label: Type.String({ maxLength: 1000 }), turns: Type.Integer({ minimum: 0 }), words: Type.Integer({ minimum: 0 }), isMind: Type.Boolean() },
  { additionalProperties: false },
);

export const BundleSnapshot = named('MindBundleSnapshot', Type.Object(
  {
    id: LocalId('s1', 'Local id: artifacts refer to it'),
    mindsetDate: Timestamp,
    linked: Type.Boolean(),
    requestedSpeaker: Nullable(Type.String({ maxLength: 1000 })),
    mindSpeaker: Nullable(Type.String({ maxLength: 1000 })),
    attribution: Nullable(Type.String({ maxLength: 200 })),
    speakersLabelled: Nullable(Type.Boolean()),
    speakers: Nullable(Type.Array(BundleSpeaker)),
    mindWords: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
    createdAt: Timestamp,
    completedAt: Nullable(Timestamp),
    file: BundleFile,
    turns: Type.Array(BundleTurn),
    psychometrics: Type.Array(BundlePsychometric),
    keyTopics: Type.Array(BundleTopic),
    findings: Type.Array(BundleFinding),
  },
  { additionalProperties: false, description: 'A completed snapshot with its speaker turns and analyses' },
));

const BundleArtifact = named('MindBundleArtifact', Type.Object(
  {
    snapshotId: LocalId('s1', 'The local id of the snapshot whose file this is'),
    contentBase64: Type.String({ contentEncoding: 'base64', description: 'The file’s bytes, base64' }),
  },
  { additionalProperties: false },
));

export const MindBundle = named('MindBundle', Type.Object(
  {
    format: Type.Literal(BUNDLE_FORMAT, { description: 'The format and its version; a newer version is refused with a 400 naming it' }),
    exportedAt: Timestamp,
    generator: Type.String({ maxLength: 200, example: 'mindprint 0.1.0' }),
    mind: BundleMind,
    tags: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, example: ['sales'] }),
    semanticIndex: Type.Object(
      { embedder: Nullable(Type.String({ maxLength: 200, example: 'glove-6b-100d-sif@1' })) },
      { additionalProperties: false, description: 'The embedder the exported semantic index was built with; vectors are not shipped, import builds them again with this server’s embedder' },
    ),
    snapshots: Type.Array(BundleSnapshot),
    artifacts: Type.Optional(Type.Array(BundleArtifact, { description: 'With `?artifacts=true`: the original files, while the bundle stays within the upload size limit' })),
    omittedArtifacts: Type.Optional(Type.Array(LocalId('s3', 'A snapshot whose file was left out'), { description: 'Snapshots whose file was left out to keep the bundle within the upload size limit' })),
  },
  { additionalProperties: false, description: `A mind with its memory bank, format \`${BUNDLE_FORMAT}\` (media type \`${BUNDLE_MEDIA_TYPE}\`)` },
));
export type MindBundle = Static<typeof MindBundle>;
export type BundleSnapshot = Static<typeof BundleSnapshot>;
export type BundleTurn = Static<typeof BundleTurn>;

export const ExportQuery = Type.Object({
  artifacts: Type.Optional(Type.Boolean({ default: false, description: 'Add the original files (base64), as long as the bundle stays within the upload size limit (MINDPRINT_MAX_UPLOAD_MB)' })),
});

export const ImportResult = named('MindImported', Type.Object({
  mindId: Uuid,
  name: Type.String({ example: 'Ada Lovelace' }),
  slug: Type.String({ example: 'ada-lovelace-2' }),
  snapshots: Type.Integer({ example: 2, description: 'Snapshots created (completed)' }),
  turns: Type.Integer({ example: 412 }),
  psychometrics: Type.Integer({ example: 24 }),
  keyTopics: Type.Integer({ example: 9 }),
  findings: Type.Integer({ example: 31 }),
  artifacts: Type.Integer({ example: 2, description: 'Original files stored from the bundle' }),
  semanticIndex: Type.Object({
    status: Type.String({ enum: ['indexing', 'ready'], description: '`indexing`: the vectors are being built in the background (GET /minds/{mindId}/semantic-index)' }),
    embedder: Type.String({ example: 'glove-6b-100d-sif@1', description: 'The embedder this server builds the vectors with' }),
    exportedWith: Nullable(Type.String({ description: 'The embedder the bundle’s index was built with' })),
  }),
}));
export type ImportResult = Static<typeof ImportResult>;
