/**
 * Reproduces src/analysis/models/big-five.json (the Big Five weights, their calibration and the
 * norm corpus values) and src/analysis/models/background.json (word frequencies of the training
 * texts, the background for topic keyness) from ../shared/data/personality and, for the norm
 * corpus, ../shared/data/transcripts, deterministically, and prints k-fold cross-validated
 * accuracy and AUC per trait for each data set.
 *
 *   node --import tsx scripts/train-big-five.ts [--check | --experiments]
 *
 * --check: train and compare with the committed files instead of writing them (exit 1 if different).
 * --experiments: print the nested-CV comparison of alternative models (src/analysis/train/experiments.ts)
 *   and the spread of the shipped model's CV accuracy over fold seeds; writes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { countTokens } from '../src/analysis/features.ts';
import { resetTokenizer, tokenize } from '../src/analysis/nlp.ts';
import { uncentredValue, type BigFiveModelFile, type BigFiveTraitWeights, type LinearWeights } from '../src/analysis/big-five.ts';
import {
  crossValidate,
  crossValidateWithLogits,
  DEFAULT_CONFIG,
  featureNames,
  fitTrait,
  plattSlope,
  prepareRows,
  transferAccuracy,
  type CvResult,
  type Row,
} from '../src/analysis/train/big-five-training.ts';
import { NORM_MIN_WORDS, readNormSpeeches } from '../src/analysis/train/norm-corpus.ts';
import { readEssays, readFriends, TRAITS, type Trait } from '../src/analysis/train/personality-data.ts';
import { buildBackground } from '../src/analysis/background.ts';
import { CANDIDATES, nestedRidgeCv, prepareTurnRows, seedSpread } from '../src/analysis/train/experiments.ts';
import { requireSharedData, SHARED_DATA_URL } from '../test/support/shared-data.ts';

const DATA = new URL('personality/', SHARED_DATA_URL);
const TRANSCRIPTS = new URL('transcripts/', SHARED_DATA_URL);
const MODEL_OUT = new URL('../src/analysis/models/big-five.json', import.meta.url);
const BACKGROUND_OUT = new URL('../src/analysis/models/background.json', import.meta.url);

const round = (x: number, digits = 6): number => Math.round(x * 10 ** digits) / 10 ** digits;

function formatCv(r: CvResult): string {
  const cells = TRAITS.map((t) => `${t.slice(0, 4)} ${r.accuracy[t].toFixed(3)}/${r.auc[t].toFixed(3)}`).join('  ');
  return `${r.dataset.padEnd(8)} n=${r.rows}  accuracy/AUC  ${cells}  mean ${r.mean.toFixed(3)}/${r.aucMean.toFixed(3)}  (majority-label baseline ${r.majorityMean.toFixed(3)})`;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const roundAll = (r: Record<Trait, number>): Record<Trait, number> => Object.fromEntries(TRAITS.map((t) => [t, round(r[t], 4)])) as Record<Trait, number>;

export async function train(): Promise<{ model: BigFiveModelFile; background: unknown; log: string[] }> {
  const log: string[] = [];
  const essayTexts = readEssays(new URL('essays-train.csv', DATA));
  const friendTexts = readFriends(new URL('friends-train.csv', DATA));
  const sets: Row[][] = [prepareRows('essays', essayTexts), prepareRows('friends', friendTexts)];
  const config = DEFAULT_CONFIG;

  log.push(`${config.folds}-fold cross-validated accuracy and AUC (above/below median label), each data set's own model:`);
  const validated = sets.map((rows) => crossValidateWithLogits(rows, [], config));
  const crossValidation = validated.map((v) => v.cv);
  for (const r of crossValidation) log.push(formatCv(r));

  const transfer = [];
  for (const [a, b] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const t = transferAccuracy(sets[a]!, sets[b]!, config);
    transfer.push(t);
    log.push(`trained on ${t.trainedOn}, tested on ${t.testedOn}: mean ${t.mean.toFixed(3)}`);
  }

  const speeches = await readNormSpeeches(TRANSCRIPTS);
  log.push(`norm corpus: ${speeches.length} speeches of ≥ ${NORM_MIN_WORDS} words`);
  const traits = {} as Record<Trait, BigFiveTraitWeights>;
  for (const trait of TRAITS) {
    const fitted = sets.map((rows, k) => {
      const m = fitTrait(rows, featureNames(rows, config), trait, config);
      const auc = validated[k]!.cv.auc[trait];
      const slope = plattSlope(validated[k]!.heldOut[trait], rows.map((r) => r.labels[trait]));
      return { rows, m, auc, skill: slope > 0 ? Math.max(0, 2 * auc - 1) : 0, slope };
    });
    const totalSkill = fitted.reduce((s, f) => s + f.skill, 0);
    const models: LinearWeights[] = fitted.map(({ rows, m, auc, skill, slope }) => ({
      dataset: rows[0]!.dataset,
      features: m.features,
      mean: m.mean.map((v) => round(v, 8)),
      sd: m.sd.map((v) => round(v, 8)),
      weights: m.weights.map((v) => round(v, 8)),
      bias: round(m.bias, 8),
      auc: round(auc, 4),
      skill: round(skill, 4),
      slope: round(slope, 4),
      weight: round(totalSkill > 0 ? skill / totalSkill : 0, 4),
    }));
    const raw = speeches.map((s) => uncentredValue(models, s.counts));
    const centre = round(median(raw), 8);
    traits[trait] = {
      models,
      centre,
      skill: round(models.reduce((s, m) => s + m.weight * m.skill, 0), 4),
      norm: raw.map((v) => round(v - centre, 6)).sort((a, b) => a - b),
    };
    log.push(`${trait}: ${models.map((m) => `${m.dataset} AUC ${m.auc} slope ${m.slope} weight ${m.weight}`).join('; ')}; skill ${traits[trait].skill}; norm ${traits[trait].norm[0]} … ${traits[trait].norm.at(-1)}`);
  }

  const model: BigFiveModelFile = {
    version: 2,
    description:
      'Big Five (above/below median) logistic models on lexical features (src/analysis/features.ts), one per data set; per trait, each model is calibrated on its held-out logits (Platt slope) and weighted by held-out skill (2·AUC − 1), and the value is centred on the median speaker of the norm corpus. Reproduce with: node --import tsx scripts/train-big-five.ts',
    config,
    training: sets.map((rows) => ({ dataset: rows[0]!.dataset, rows: rows.length })),
    normCorpus: {
      description: `Every speaker with at least ${NORM_MIN_WORDS} words in each transcript of ../shared/data/transcripts (podcasts and debates), read with src/ingest; one entry per speaker and conversation.`,
      minWords: NORM_MIN_WORDS,
      speeches: speeches.map((s) => ({ name: s.name, words: s.words })),
    },
    crossValidation: crossValidation.map((r) => ({
      ...r,
      accuracy: roundAll(r.accuracy),
      majority: roundAll(r.majority),
      auc: roundAll(r.auc),
      mean: round(r.mean, 4),
      majorityMean: round(r.majorityMean, 4),
      aucMean: round(r.aucMean, 4),
    })),
    transfer: transfer.map((t) => ({ ...t, accuracy: roundAll(t.accuracy), mean: round(t.mean, 4) })),
    traits,
  };
  resetTokenizer();
  const background = buildBackground([...essayTexts, ...friendTexts].map((t) => countTokens(tokenize(t.text))));
  return { model, background, log };
}

function experiments(): void {
  const texts = { essays: readEssays(new URL('essays-train.csv', DATA)), friends: readFriends(new URL('friends-train.csv', DATA)) };
  // The shipped model's rows (a Friends scene tokenized as one text) and per-turn rows for the candidates.
  const shippedSets = Object.entries(texts).map(([ds, t]) => prepareRows(ds, t));
  const sets = Object.entries(texts).map(([ds, t]) => prepareTurnRows(ds, t));
  console.log(`| data set | model | ${TRAITS.join(' | ')} | mean |`);
  console.log(`|---|---|${TRAITS.map(() => '---:').join('|')}|---:|`);
  for (const [k, rows] of sets.entries()) {
    const ds = rows[0]!.dataset;
    const shipped = crossValidate(shippedSets[k]!, [], DEFAULT_CONFIG);
    const line = (name: string, acc: Record<Trait, number>, mean: number): void =>
      console.log(`| ${ds} | ${name} | ${TRAITS.map((t) => acc[t].toFixed(3)).join(' | ')} | ${mean.toFixed(3)} |`);
    line('majority label', shipped.majority, shipped.majorityMean);
    line('shipped: logistic, categories + 600 unigrams, λ = 3', shipped.accuracy, shipped.mean);
    for (const c of CANDIDATES) {
      const r = nestedRidgeCv(rows, c, DEFAULT_CONFIG.folds, DEFAULT_CONFIG.seed);
      line(`ridge, ${c.name}, λ per trait by inner LOO`, r.accuracy, r.mean);
      console.error(`  ${ds} ${c.name}: λ ${TRAITS.map((t) => r.lambdas[t].join('/')).join('  ')}`);
    }
  }
  for (const rows of shippedSets) {
    const means = seedSpread(rows, DEFAULT_CONFIG, [1, 2, 3, 4, 5]);
    console.log(`${rows[0]!.dataset}: shipped model's mean CV accuracy under fold seeds 1–5: ${means.map((m) => m.toFixed(3)).join(', ')}`);
  }
}

const isMain = import.meta.url === new URL(process.argv[1] ?? '', 'file://').href;
if (isMain) requireSharedData('scripts/train-big-five.ts');
if (isMain && process.argv.includes('--experiments')) experiments();
else if (isMain) {
  const check = process.argv.includes('--check');
  const { model, background, log } = await train();
  for (const line of log) console.log(line);
  const modelJson = `${JSON.stringify(model)}\n`;
  const backgroundJson = `${JSON.stringify(background)}\n`;
  if (check) {
    const same =
      readFileSync(MODEL_OUT, 'utf8') === modelJson && readFileSync(BACKGROUND_OUT, 'utf8') === backgroundJson;
    console.log(same ? 'committed weight files are reproduced exactly' : 'committed weight files DIFFER from a fresh training run');
    process.exitCode = same ? 0 : 1;
  } else {
    writeFileSync(MODEL_OUT, modelJson);
    writeFileSync(BACKGROUND_OUT, backgroundJson);
    console.log(`wrote ${MODEL_OUT.pathname} (${modelJson.length} bytes) and ${BACKGROUND_OUT.pathname} (${backgroundJson.length} bytes)`);
  }
}
