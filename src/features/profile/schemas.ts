/**
 * The analysis vocabulary of the API: a snapshot's psychometrics, key topics and findings (each
 * with the quotes it rests on), and the mind's profile pooled from them (GET /minds/{id}/profile;
 * definitions in src/lib/analysis/README.md). Snapshots list the per-snapshot rows with these.
 */
import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

const Evidence = named('EvidenceQuote', Type.Object({ turnId: Uuid, quote: Type.String(), startMs: Nullable(Type.Number()) }));

export const Psychometric = named('Psychometric', Type.Object({
  id: Uuid,
  snapshotId: Uuid,
  mindId: Uuid,
  instrument: Type.String({ enum: ['big_five', 'communication_style', 'emotion', 'ipip-bfm-50'], example: 'big_five', description: 'big_five | communication_style | emotion | ipip-bfm-50 (with an LLM: the IPIP Big-Five markers answered in character, src/lib/analysis/README.md)' }),
  name: Type.String({ example: 'openness' }),
  score: Nullable(Type.Number({ description: '0–1 (null when there is too little text)' })),
  percentile: Nullable(Type.Number({ description: 'Against the norm corpus (Big Five only)' })),
  confidence: Type.Number({ description: '0–1; grows with the number of the mind’s words (Big Five: × the model’s held-out skill)' }),
  note: Nullable(Type.String()),
  evidence: Type.Array(Evidence),
}));

export const KeyTopic = named('Topic', Type.Object({
  id: Uuid,
  snapshotId: Uuid,
  mindId: Uuid,
  label: Type.String({ example: 'health care' }),
  keywords: Type.Array(Type.String()),
  share: Type.Number({ description: 'Fraction of the mind’s words on this topic' }),
  sentiment: Type.Number({ description: '−1 (negative) to 1 (positive)' }),
  evidence: Type.Array(Evidence),
}));

export const Finding = named('Finding', Type.Object({
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
}));

/** GET /minds/{mindId}/profile: lib/analysis/profile.ts `MindProfile` (definitions in src/lib/analysis/README.md). */
const ProfileEvidence = Type.Object({ ...Evidence.properties, snapshotId: Uuid });
export const MindProfile = named('MindProfile', Type.Object({
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
      note: Nullable(Type.String({ description: 'How far to trust the aggregate: for Big Five the words over all snapshots, the measurement band and the model’s held-out skill; for a questionnaire (ipip-bfm-50) what it rests on and that no one has checked role-played answers against the person’s own; null for other measures' })),
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
}));
