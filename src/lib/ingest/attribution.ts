/**
 * Which speaker of a transcript is the mind: the label the user asked for, else the label that
 * names the mind, else the speaker who talks the most.
 */
import type { Attribution, SpeakerSummary, Transcript } from './types.ts';
import { UnknownSpeakerError, UnreadableTranscriptError } from './errors.ts';
import { countWords } from './words.ts';

export interface AttributeOptions {
  /** The mind's name, e.g. "Barack Obama". */
  mindName: string;
  /** A label chosen by the user; matched as matchSpeakerLabel says (case, prefix, name). */
  requestedSpeaker?: string | null;
}

export interface AttributionResult {
  mindLabel: string;
  attribution: Attribution;
  speakers: SpeakerSummary[];
}

/** Honorifics and roles that prefix names in transcripts ("PRESIDENT OBAMA", "MS. KARLAN"). */
const TITLES = new Set([
  'mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady', 'president', 'vice',
  'governor', 'gov', 'senator', 'sen', 'secretary', 'justice', 'chief', 'judge', 'general', 'gen', 'rev',
  'reverend', 'hon', 'honorable', 'esq', 'jr', 'sr', 'ii', 'iii', 'iv', 'rep', 'representative', 'congressman',
  'congresswoman', 'mayor', 'captain', 'capt', 'col', 'colonel', 'lt', 'sgt', 'former', 'the', 'speaker', 'host',
  'guest', 'moderator', 'candidate', 'nominee', 'attorney', 'counsel', 'solicitor', 'minister', 'prime',
]);

/** Case-, accent- and punctuation-insensitive words of a name. */
function nameWords(name: string): string[] {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Words that identify a person: without titles and without single-letter initials. */
function significant(words: string[]): string[] {
  return words.filter((w) => !TITLES.has(w) && w.length > 1);
}

/**
 * How well a label names the mind (0 = not at all). A label matches when its identifying words
 * are all words of the mind's name ("HUBERMAN", "PRESIDENT OBAMA", "Barack H Obama") or the
 * mind's words are all in the label ("Obama" for the label "Barack Obama"); "Michelle Obama"
 * does not match "Barack Obama". More shared words score higher; the full name scores highest.
 */
function nameScore(mindName: string, label: string): number {
  const mind = significant(nameWords(mindName));
  const lab = significant(nameWords(label));
  if (mind.length === 0 || lab.length === 0) return 0;
  const mindSet = new Set(mind);
  const labSet = new Set(lab);
  const labInMind = lab.every((w) => mindSet.has(w));
  const mindInLab = mind.every((w) => labSet.has(w));
  if (!labInMind && !mindInLab) return 0;
  const shared = lab.filter((w) => mindSet.has(w)).length;
  // Among single-word matches a surname identifies a person better than a first name.
  const surnameBonus = shared === 1 && lab[lab.length - 1] === mind[mind.length - 1] ? 0.5 : 0;
  return shared + surnameBonus + (labInMind && mindInLab ? 1 : 0);
}

/** A label as compared with what a user typed: its words, without case, accents or punctuation. */
function comparable(label: string): string {
  return nameWords(label).join(' ');
}

/** Which label a requested speaker names: one, several (`candidates`, ambiguous), or none. */
export type LabelMatch = { label: string } | { label: null; candidates: string[] };

/**
 * The label among `labels` that `requested` names. Tried in order, the first step with any
 * match decides: the same label ignoring case, accents, punctuation and spacing ("lenny" →
 * "Lenny", "W. Mitt Romney" → "W Mitt Romney"); a label that starts with it ("Lenny" →
 * "Lenny Rachitsky"); a label naming the same person (nameScore: "Lenny Rachitsky" → "Lenny",
 * "Obama" → "PRESIDENT OBAMA"), the best-scoring one. A step with several matches (two labels
 * starting "Speaker") is ambiguous: no label, and the candidates to choose from.
 */
export function matchSpeakerLabel(labels: readonly string[], requested: string): LabelMatch {
  const wanted = comparable(requested);
  if (!wanted) return { label: null, candidates: [] };
  const decide = (found: string[]): LabelMatch | null => (found.length === 1 ? { label: found[0]! } : found.length > 1 ? { label: null, candidates: found } : null);
  const exact = decide(labels.filter((l) => comparable(l) === wanted));
  if (exact) return exact;
  const prefixed = decide(labels.filter((l) => comparable(l).startsWith(wanted)));
  if (prefixed) return prefixed;
  const scores = labels.map((l) => nameScore(requested, l));
  const best = Math.max(0, ...scores);
  return decide(best > 0 ? labels.filter((_, i) => scores[i] === best) : []) ?? { label: null, candidates: [] };
}

/** The label `requested` names (matchSpeakerLabel); throws UnknownSpeakerError when none or several do. */
export function resolveSpeakerLabel(labels: readonly string[], requested: string): string {
  const match = matchSpeakerLabel(labels, requested);
  if (match.label === null) throw new UnknownSpeakerError(requested.trim(), [...labels], match.candidates);
  return match.label;
}

export function attributeSpeaker(transcript: Transcript, opts: AttributeOptions): AttributionResult {
  const stats = new Map<string, { turns: number; words: number; order: number }>();
  for (const turn of transcript.turns) {
    const s = stats.get(turn.speaker) ?? { turns: 0, words: 0, order: stats.size };
    s.turns++;
    s.words += countWords(turn.text);
    stats.set(turn.speaker, s);
  }
  const labels = [...stats.keys()];
  if (labels.length === 0) throw new UnreadableTranscriptError('The transcript has no speakers');

  let mindLabel: string | undefined;
  let attribution: Attribution;
  const requested = opts.requestedSpeaker?.trim();
  if (requested) {
    mindLabel = resolveSpeakerLabel(labels, requested);
    attribution = 'requested';
  } else {
    let best = 0;
    for (const label of labels) {
      const score = nameScore(opts.mindName, label);
      const better = score > best || (score === best && score > 0 && mindLabel !== undefined && stats.get(label)!.words > stats.get(mindLabel)!.words);
      if (better) {
        best = score;
        mindLabel = label;
      }
    }
    if (mindLabel !== undefined) {
      attribution = 'name';
    } else {
      mindLabel = labels.reduce((a, b) => (stats.get(b)!.words > stats.get(a)!.words ? b : a));
      attribution = 'inferred';
    }
  }

  const speakers: SpeakerSummary[] = labels.map((label) => ({
    label,
    turns: stats.get(label)!.turns,
    words: stats.get(label)!.words,
    isMind: label === mindLabel,
  }));
  return { mindLabel, attribution, speakers };
}
