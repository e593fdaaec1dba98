/**
 * What the reranker learns to maximise: how much better a candidate's passage matches the
 * person's real answer than chance of its own length. Token F1 against the real answer rises
 * with length up to the answer's (a longer passage shares more "the", "and", "I think"), so a
 * model trained on raw F1 learns to prefer long passages — it says nothing about whether the
 * passage is the right reply. The target here is F1 minus the F1 of random excerpts of the same
 * person's own words as long as the passage (the length-matched baseline of bench/fidelity.ts),
 * so only choosing the right words counts.
 *
 * Shared by the training script, the per-mind adaptation (./adapt.ts) and the benchmarks, so
 * the metric trained on is the metric measured.
 */
import { spokenSentences, words } from '../../../lib/language/text.ts';
/** The seeded PRNG of the chance baselines (the same every run). */
import { mulberry32 as prng } from '../../../lib/prng.ts';
export { prng };

/** Token F1 (SQuAD-style: multiset overlap of tokens) of a predicted answer against the real one. */
export function tokenF1(pred: readonly string[], gold: readonly string[]): number {
  if (!pred.length || !gold.length) return 0;
  const counts = new Map<string, number>();
  for (const g of gold) counts.set(g, (counts.get(g) ?? 0) + 1);
  let common = 0;
  for (const p of pred) {
    const c = counts.get(p) ?? 0;
    if (c > 0) {
      common++;
      counts.set(p, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / pred.length;
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
}


/** The sentences of each of the person's turns, in memory order (for lengthMatchedExcerpt). */
export function memorySentences(memory: readonly string[]): string[][] {
  return memory.map((t) => spokenSentences(t).map((s) => s.text.trim()).filter((s) => words(s).length > 0));
}

/**
 * A random excerpt of the person's own words about `target` words long: a random memory turn, a
 * random sentence in it (split as the engine splits: spokenSentences), then the following whole
 * sentences — on into the person's next turns in memory, wrapping at the end — until the excerpt
 * reaches `target` words. The last sentence is kept only if that leaves the count nearer the
 * target than stopping before it; at least one sentence is always taken.
 */
export function lengthMatchedExcerpt(turns: readonly (readonly string[])[], target: number, rand: () => number): string {
  const total = turns.reduce((n, t) => n + t.length, 0);
  if (total === 0) return '';
  let ti = Math.floor(rand() * turns.length);
  while (turns[ti]!.length === 0) ti = (ti + 1) % turns.length;
  let si = Math.floor(rand() * turns[ti]!.length);
  const out: string[] = [];
  let count = 0;
  for (let taken = 0; taken < total; taken++) {
    const sentence = turns[ti]![si]!;
    const n = words(sentence).length;
    if (out.length > 0 && Math.abs(count + n - target) > Math.abs(count - target)) break;
    out.push(sentence);
    count += n;
    if (count >= target) break;
    si++;
    while (si >= turns[ti]!.length) {
      ti = (ti + 1) % turns.length;
      si = 0;
    }
  }
  return out.join(' ');
}

/** Lengths (words) at which chance is measured; in between it is interpolated on log length. */
const CHANCE_LENGTHS = [12, 24, 48, 96, 192, 384, 768];
/** Random excerpts per length. */
const CHANCE_DRAWS = 6;

/**
 * Expected token F1 against `gold` of a random excerpt of `memory` (sentences per turn) as a
 * function of its length in words: the chance a passage of that length has to beat.
 */
export function chanceOfLength(gold: string, memory: readonly (readonly string[])[], seed: number): (n: number) => number {
  const g = words(gold);
  const rand = prng(seed);
  const at = CHANCE_LENGTHS.map((len) => {
    let s = 0;
    for (let d = 0; d < CHANCE_DRAWS; d++) s += tokenF1(words(lengthMatchedExcerpt(memory, len, rand)), g);
    return s / CHANCE_DRAWS;
  });
  const logs = CHANCE_LENGTHS.map(Math.log2);
  return (n: number) => {
    if (n <= 0) return 0;
    const x = Math.log2(n);
    if (x <= logs[0]!) return at[0]!;
    for (let i = 1; i < logs.length; i++) {
      if (x <= logs[i]!) {
        const t = (x - logs[i - 1]!) / (logs[i]! - logs[i - 1]!);
        return at[i - 1]! + t * (at[i]! - at[i - 1]!);
      }
    }
    return at.at(-1)!;
  };
}

/** Each text's token F1 against `gold` above chance of its length (the reranker's target). */
export function liftOverChance(texts: readonly string[], gold: string, chance: (n: number) => number): { f1: number[]; chance: number[]; lift: number[] } {
  const g = words(gold);
  const f1 = texts.map((t) => tokenF1(words(t), g));
  const c = texts.map((t) => chance(words(t).length));
  return { f1, chance: c, lift: f1.map((x, i) => x - c[i]!) };
}
