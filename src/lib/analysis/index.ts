/**
 * Memory bank analysis (embedded, offline): psychometrics, key topics and findings from the
 * mind's own turns, each with the transcript lines behind it. See README.md for every measure.
 */
import { scoreBigFive } from './big-five.ts';
import { extractFindings } from './findings.ts';
import { prepareTurns, speechIsUnpunctuated } from './prepare.ts';
import { prepareFreshTokenizer, resetTokenizer } from './nlp.ts';
import { scoreStyleAndEmotion, UNLABELLED_NOTE } from './style.ts';
import { extractTopics } from './topics.ts';
import type { AnalysisResult, AnalysisTurn } from './types.ts';

export type {
  AnalysisResult,
  AnalysisTurn,
  EvidenceRef,
  FindingKind,
  FindingResult,
  KeyTopicResult,
  PsychometricResult,
} from './types.ts';
export { buildProfile, RECENCY_HALF_LIFE_DAYS } from './profile.ts';
export type { MindProfile, ProfileSnapshotInput, ProfileTopic, ProfileTrait, ProfileFinding, TraitTrajectory, TrajectoryPoint } from './profile.ts';
export { styleMap } from './style.ts';
export { MIN_WORDS as BIG_FIVE_MIN_WORDS, LOW_CONFIDENCE_WORDS as BIG_FIVE_LOW_CONFIDENCE_WORDS } from './big-five.ts';

export interface AnalyseOptions {
  /**
   * The transcript names no speakers (ingest's `Transcript.unlabelled`: auto-captions, a plain
   * document): its turns are pieces cut by length, not the person's turns, and everyone who spoke
   * in it is "the mind". Words per turn is then not measured, and every row's note says so.
   */
  unlabelled?: boolean;
}

/**
 * Analyse a transcript's turns. Only `isMind` turns feed the results (other speakers' turns are
 * context: their names are never topics). Synchronous and deterministic.
 */
export function analyseTurns(turns: AnalysisTurn[], options: AnalyseOptions = {}): AnalysisResult {
  // A pristine tokenizer: what the process analysed before must not change this analysis.
  resetTokenizer();
  const unpunctuated = speechIsUnpunctuated(turns);
  const mind = prepareTurns(turns, unpunctuated);
  prepareFreshTokenizer();
  const mindWords = mind.reduce((s, t) => s + t.words, 0);
  const bigFive = scoreBigFive(mind, mindWords);
  if (options.unlabelled && mindWords > 0) for (const row of bigFive) row.note = `${row.note} ${UNLABELLED_NOTE}`;
  return {
    mindWords,
    psychometrics: [...bigFive, ...scoreStyleAndEmotion(mind, mindWords, { unlabelled: options.unlabelled, unpunctuated })],
    keyTopics: mindWords > 0 ? extractTopics(mind, turns, mindWords) : [],
    findings: extractFindings(mind, mindWords),
  };
}
