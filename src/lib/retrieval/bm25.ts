/**
 * BM25 (Robertson & Zaragoza 2009), once: its constants and its three parts, for the two rankers
 * that use it — the memory's in-process full-text index (features/memory/lexical-index.ts: the
 * candidates, from all of a mind's turns) and the extractive engine's BM25F (engines/extractive/
 * rank.ts: the choice among those candidates). Both weigh a turn's own words and the question it
 * answered as two fields; they differ only in how: the index saturates each field and adds them,
 * the engine adds the fields' normalised frequencies and saturates once (BM25F), which is why the
 * composition stays with each caller.
 */

/** Term-frequency saturation: the usual value. */
export const K1 = 1.2;
/** Length normalisation of a turn's own words: the usual value. */
export const B = 0.75;

/** Robertson–Spärck Jones idf of a term in `df` of `n` documents, kept positive even for a term in every one. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * A field's term frequency normalised by the field's length against its average (`b`: how much
 * length counts, 0 not at all, 1 fully). Averages below one word count as one.
 */
export function normalisedTf(tf: number, length: number, averageLength: number, b: number = B): number {
  return tf / (1 - b + (b * length) / Math.max(averageLength, 1));
}

/** A normalised term frequency, saturated: 0 for none, approaching 1 as it grows. */
export function saturate(tf: number): number {
  return tf / (K1 + tf);
}
