/** The specificity studies' tally of top-1 picks per representation, and its table (one definition for every study). */
import { words } from '../../src/lib/language/text.ts';
import { questionStems, specificity, type Space } from '../../src/lib/fidelity/measure.ts';
import { mean } from './rank-fusion.ts';

export type Tally = Map<string, { spec: number[]; beyond: number[]; words: number[] }>;

/** Scores `pick` for `name`: specificity against the other real answers, also beyond the question's words. */
export function record(tally: Tally, name: string, pick: string, space: Space, pair: { message: string; gold: string }, others: string[]): void {
  let r = tally.get(name);
  if (!r) tally.set(name, (r = { spec: [], beyond: [], words: [] }));
  r.spec.push(specificity(space, pick, pair.gold, others)!);
  r.beyond.push(specificity(space, pick, pair.gold, others, questionStems(space, pair.message))!);
  r.words.push(words(pick).length);
}

export function printTally(tally: Tally): void {
  console.log('| representation (top-1 whole reply) | questions | specificity AUC | beyond the question | mean words |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, r] of tally) console.log(`| ${name} | ${r.spec.length} | ${mean(r.spec).toFixed(3)} | ${mean(r.beyond).toFixed(3)} | ${Math.round(mean(r.words))} |`);
}
