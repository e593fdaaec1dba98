/** Public shapes of the analysis results (see README.md for what each measure means). */

export interface AnalysisTurn {
  turnId: string;
  speaker: string;
  text: string;
  startMs: number | null;
  /** True for the mind's own turns; other speakers' turns are context only and never quoted. */
  isMind: boolean;
  /** A later part of one long turn that ingest cut in parts: not a new turn of the speaker. */
  continues?: boolean;
}

/** A transcript line behind a claim: the turn and a verbatim excerpt of it. */
export interface EvidenceRef {
  turnId: string;
  quote: string;
  startMs: number | null;
}

export interface PsychometricResult {
  /** `big_five`, `communication_style` or `emotion`. */
  instrument: string;
  name: string;
  score: number | null;
  /** 0–100 against the norm corpus, where there is one; null otherwise. */
  percentile: number | null;
  /** 0–1: how much evidence the score rests on (grows with the mind's words). */
  confidence: number;
  evidence: EvidenceRef[];
  note: string | null;
}

export interface KeyTopicResult {
  /** A phrase that occurs in the mind's own words. */
  label: string;
  keywords: string[];
  /** Fraction of the mind's words spent on this topic (0–1). */
  share: number;
  /** −1 (all negative) … +1 (all positive), AFINN-165 with negation. */
  sentiment: number;
  evidence: EvidenceRef[];
}

export type FindingKind = 'belief' | 'preference' | 'value' | 'goal' | 'habit' | 'experience' | 'fact';

export interface FindingResult {
  kind: FindingKind;
  /** The claim restated in the third person ("Does not think that …"). */
  statement: string;
  /** The sentence it comes from, verbatim. */
  quote: string;
  turnId: string;
  startMs: number | null;
  polarity: 'positive' | 'negative' | 'neutral';
  confidence: number;
}

export interface AnalysisResult {
  mindWords: number;
  psychometrics: PsychometricResult[];
  keyTopics: KeyTopicResult[];
  findings: FindingResult[];
}
