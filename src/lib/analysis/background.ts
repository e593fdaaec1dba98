/**
 * General-language word frequencies, the background against which a person's topic words are
 * "key": counts of the personality training texts (student essays and sitcom dialogue, ~0.4 M
 * words of everyday English), written by scripts/train-big-five.ts to models/background.json.
 */
import { readFileSync } from 'node:fs';
import type { Counts } from './features.ts';

export interface Background {
  totalWords: number;
  /** Lower-cased word → count, for words seen at least MIN_COUNT times. */
  counts: Record<string, number>;
}

const MIN_COUNT = 3;

export function buildBackground(texts: Counts[]): Background {
  const counts = new Map<string, number>();
  let totalWords = 0;
  for (const c of texts) {
    totalWords += c.get('#words') ?? 0;
    for (const [k, v] of c) if (k.startsWith('u:')) counts.set(k.slice(2), (counts.get(k.slice(2)) ?? 0) + v);
  }
  const kept = [...counts.entries()].filter(([, v]) => v >= MIN_COUNT).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return { totalWords, counts: Object.fromEntries(kept) };
}

let cached: Background | undefined;
export function loadBackground(): Background {
  cached ??= JSON.parse(readFileSync(new URL('./models/background.json', import.meta.url), 'utf8')) as Background;
  return cached;
}
