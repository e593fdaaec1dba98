/**
 * The reranker's model: a linear score over standardized features, trained listwise (ListNet,
 * top-one probability; Cao et al. 2007): for each question, a softmax over its candidates'
 * scores is fitted to a sharp softmax over how good each candidate's passage really was (token
 * F1 against the person's real answer). A handful of weights, a few hundred bytes of JSON,
 * deterministic full-batch gradient descent — small enough to read, retrain at build time, and
 * adapt per mind from its own question → answer pairs (`adapt`).
 *
 * Written here rather than taken from an npm package: the model is one dot product, the training
 * loop forty lines; the learning-to-rank packages on npm are either gradient-boosted trees with
 * native code or unmaintained, and a tree ensemble would not fit in a few KB or adapt per mind.
 */

export interface RerankModel {
  /** Bump when features change meaning: a model file of another version is refused. */
  version: number;
  features: string[];
  /** Standardization: (x − mean) / scale, per feature. */
  mean: number[];
  scale: number[];
  weights: number[];
  /** How it was trained (data, split, pairs, held-out accuracy), for whoever reads the file. */
  trainedOn?: Record<string, unknown>;
}

/** One question's candidates: feature rows and how good each one was (higher is better). */
export interface Group {
  x: number[][];
  y: number[];
}

export interface TrainOptions {
  /** Temperature of the target distribution over candidates (on the y scale). */
  temperature?: number;
  /** L2 pull of the weights towards `prior` (or 0). */
  l2?: number;
  iterations?: number;
  learningRate?: number;
  /** Start from and regularize towards these weights (per-mind adaptation). */
  prior?: number[];
}

export function scoreRow(model: RerankModel, x: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < model.weights.length; i++) s += (model.weights[i]! * ((x[i] ?? 0) - model.mean[i]!)) / model.scale[i]!;
  return s;
}

/** Mean and standard deviation of each feature over all rows (scale 1 for a constant feature). */
export function standardization(groups: readonly Group[], n: number): { mean: number[]; scale: number[] } {
  const mean = new Array<number>(n).fill(0);
  const sq = new Array<number>(n).fill(0);
  let rows = 0;
  for (const g of groups)
    for (const x of g.x) {
      rows++;
      for (let i = 0; i < n; i++) mean[i]! += x[i]!;
    }
  for (let i = 0; i < n; i++) mean[i]! /= Math.max(1, rows);
  for (const g of groups) for (const x of g.x) for (let i = 0; i < n; i++) sq[i]! += (x[i]! - mean[i]!) ** 2;
  const scale = sq.map((s) => {
    const sd = Math.sqrt(s / Math.max(1, rows));
    return sd > 1e-9 ? sd : 1;
  });
  return { mean, scale };
}

function softmax(xs: readonly number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

/** ListNet training: returns the weights (standardized space) for `features`. */
export function train(features: readonly string[], groups: readonly Group[], std: { mean: number[]; scale: number[] }, o: TrainOptions = {}): number[] {
  const n = features.length;
  const temperature = o.temperature ?? 0.02;
  const l2 = o.l2 ?? 0.01;
  const iterations = o.iterations ?? 400;
  const lr = o.learningRate ?? 0.5;
  const prior = o.prior ?? new Array<number>(n).fill(0);
  const usable = groups.filter((g) => g.x.length > 1 && Math.max(...g.y) > Math.min(...g.y));
  const zs = usable.map((g) => g.x.map((x) => x.map((v, i) => (v - std.mean[i]!) / std.scale[i]!)));
  const targets = usable.map((g) => softmax(g.y.map((y) => y / temperature)));
  const w = [...prior];
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(n).fill(0);
    zs.forEach((z, gi) => {
      const p = softmax(z.map((row) => row.reduce((s, v, i) => s + v * w[i]!, 0)));
      const t = targets[gi]!;
      z.forEach((row, k) => {
        const d = p[k]! - t[k]!;
        for (let i = 0; i < n; i++) grad[i]! += d * row[i]!;
      });
    });
    for (let i = 0; i < n; i++) w[i]! -= lr * (grad[i]! / Math.max(1, zs.length) + l2 * (w[i]! - prior[i]!));
  }
  return w;
}

/** A model trained on `groups`. */
export function fit(version: number, features: readonly string[], groups: readonly Group[], o: TrainOptions = {}): RerankModel {
  const std = standardization(groups, features.length);
  const weights = train(features, groups, std, o);
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  return { version, features: [...features], mean: std.mean.map(round), scale: std.scale.map(round), weights: weights.map(round) };
}

/**
 * The model adapted to one mind from its own question → answer pairs: the same standardization,
 * a few steps from the shipped weights and held near them (so a mind with few pairs keeps the
 * shipped model).
 */
export function adapt(model: RerankModel, groups: readonly Group[], o: TrainOptions = {}): RerankModel {
  const weights = train(model.features, groups, { mean: model.mean, scale: model.scale }, { iterations: 60, l2: 0.5, ...o, prior: model.weights });
  return { ...model, weights };
}

/** Validates a parsed model file against the features the code computes. */
export function checkModel(raw: unknown, version: number, features: readonly string[]): RerankModel {
  const m = raw as RerankModel;
  const n = features.length;
  const ok =
    m &&
    m.version === version &&
    Array.isArray(m.features) &&
    m.features.length === n &&
    m.features.every((f, i) => f === features[i]) &&
    [m.mean, m.scale, m.weights].every((a) => Array.isArray(a) && a.length === n && a.every((v) => typeof v === 'number' && Number.isFinite(v)));
  if (!ok) throw new Error(`reranker model: expected version ${version} with features ${features.join(', ')}`);
  return m;
}
