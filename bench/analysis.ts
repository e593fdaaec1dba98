/**
 * Analysis benchmark: time per 10k words of the mind's speech on the real transcripts (read as the
 * service reads an upload: src/ingest's parser and attribution, continuation lines included), and the
 * Big Five model's k-fold cross-validated accuracy on the personality data.
 *
 * Baselines measured in the same run: for speed, tokenizing the same turns with wink-nlp alone
 * (the floor every analysis pays); for accuracy, always guessing each trait's majority label.
 * Writes bench/results/analysis.md.
 *
 * Run: node --import tsx bench/analysis.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { analyseTurns } from '../src/analysis/index.ts';
import { tokenize } from '../src/analysis/nlp.ts';
import { crossValidate, DEFAULT_CONFIG, prepareRows } from '../src/analysis/train/big-five-training.ts';
import { readEssays, readFriends, TRAITS } from '../src/analysis/train/personality-data.ts';
import { debate, lenny, lex, transcriptTurns } from '../test/analysis/transcripts.ts';

const DATA = new URL('../../shared/data/', import.meta.url);
const RESULTS = new URL('./results/analysis.md', import.meta.url);
const RUNS = 3;

const CASES: { name: string; file: string; mind: string }[] = [
  { name: '2012-10-03 debate, Romney', file: debate('2012-10-03'), mind: 'W Mitt Romney' },
  { name: '2012-10-16 debate, Obama', file: debate('2012-10-16'), mind: 'Barack H Obama' },
  { name: '2016-09-26 debate, Trump', file: debate('2016-09-26'), mind: 'Donald J Trump' },
  { name: '2016-10-19 debate, Clinton', file: debate('2016-10-19'), mind: 'Hillary R Clinton' },
  { name: 'Lex #393, Andrew Huberman', file: lex('393-andrew-huberman.txt'), mind: 'Andrew Huberman' },
  { name: 'Lex #400, Elon Musk', file: lex('400-elon-musk.txt'), mind: 'Elon Musk' },
  { name: 'Lex #429, Paul Rosolie', file: lex('429-paul-rosolie.txt'), mind: 'Paul Rosolie' },
  { name: 'Lex #489, Paul Rosolie', file: lex('489-paul-rosolie.txt'), mind: 'Paul Rosolie' },
  { name: 'Lex #438, Neuralink: Noland Arbaugh', file: lex('438-elon-musk-neuralink-team.txt'), mind: 'Noland Arbaugh' },
  { name: "Lenny's Podcast, Bob Moesta", file: lenny('bob-moesta'), mind: 'Bob Moesta' },
];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timeIt(fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const lines: string[] = [];
const out = (s = ''): void => {
  lines.push(s);
  console.log(s);
};

out('# Analysis benchmark');
out();
out(`Machine: ${process.platform} ${process.arch}, Node ${process.version}; median of ${RUNS} runs after one warm-up run per transcript.`);
out();
out('## Speed: analysis time per 10k words of the mind\'s speech');
out();
out('Baseline: tokenizing the same turns with wink-nlp alone (sentence split, POS, lemma, negation), which every analysis needs.');
out();
out('| transcript | mind words | analysis ms | ms / 10k words | tokenize-only ms | analysis ÷ tokenize |');
out('|---|---:|---:|---:|---:|---:|');
let totalWords = 0;
let totalMs = 0;
let totalTok = 0;
for (const c of CASES) {
  const turns = await transcriptTurns(c.file, c.mind);
  const mindTexts = turns.filter((t) => t.isMind).map((t) => t.text);
  const words = analyseTurns(turns).mindWords; // warm-up
  const ms = timeIt(() => analyseTurns(turns));
  const tok = timeIt(() => mindTexts.forEach((t) => tokenize(t)));
  totalWords += words;
  totalMs += ms;
  totalTok += tok;
  out(`| ${c.name} | ${words} | ${ms.toFixed(0)} | ${((ms / words) * 10000).toFixed(0)} | ${tok.toFixed(0)} | ${(ms / tok).toFixed(2)} |`);
}
const per10k = (totalMs / totalWords) * 10000;
out(`| **all** | ${totalWords} | ${totalMs.toFixed(0)} | **${per10k.toFixed(0)}** | ${totalTok.toFixed(0)} | ${(totalMs / totalTok).toFixed(2)} |`);
out();
out(`Aim: under 300 ms per 10k words → ${per10k < 300 ? 'met' : 'NOT met'} (${per10k.toFixed(0)} ms).`);
out();

out(`## Big Five: ${DEFAULT_CONFIG.folds}-fold cross-validated accuracy (above/below the median label)`);
out();
out('Each data set\'s own model (the shipped model averages both), same features and settings as `scripts/train-big-five.ts`. Baseline: always answering the trait\'s majority label in that data set.');
out();
const personality = new URL('personality/', DATA);
const sets = [
  prepareRows('essays', readEssays(new URL('essays-train.csv', personality))),
  prepareRows('friends', readFriends(new URL('friends-train.csv', personality))),
];
out(`| data set | n | ${TRAITS.join(' | ')} | mean | majority baseline | mean ÷ baseline |`);
out(`|---|---:|${TRAITS.map(() => '---:').join('|')}|---:|---:|---:|`);
for (const rows of sets) {
  const t0 = performance.now();
  const cv = crossValidate(rows, [], DEFAULT_CONFIG);
  const secs = (performance.now() - t0) / 1000;
  out(`| ${cv.dataset} | ${cv.rows} | ${TRAITS.map((t) => cv.accuracy[t].toFixed(3)).join(' | ')} | **${cv.mean.toFixed(3)}** | ${cv.majorityMean.toFixed(3)} | ${(cv.mean / cv.majorityMean).toFixed(3)} |`);
  console.log(`  (${cv.dataset}: ${secs.toFixed(1)} s)`);
}
out();
out('Published anchors on the full essays corpus (2,467 essays; ours is a 346-essay subset): Mairesse et al. 2007 ≈ 0.57 mean, Majumder et al. 2017 ≈ 0.59 mean.');
out();

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(RESULTS, `${lines.join('\n')}\n`);
console.log(`\nwrote ${RESULTS.pathname}`);
