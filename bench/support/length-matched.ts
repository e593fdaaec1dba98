/**
 * The length-matched baseline of the fidelity benchmarks: a random excerpt of the person's own
 * words as long as the answer it is compared with (token F1 depends strongly on length, so an
 * answer is only better than chance if it beats chance of its own length). Shared by
 * bench/fidelity.ts and bench/support/candidate-study.ts.
 */
import { spokenSentences, words } from '../../src/simulation/extractive/text.ts';

/** mulberry32: a small seeded PRNG so the random baselines are the same every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sentences of each of the person's turns in memory, in memory order (for lengthMatchedExcerpt). */
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
