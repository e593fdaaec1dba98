/**
 * The length-matched baseline of the fidelity benchmarks: a random excerpt of the person's own
 * words as long as the answer it is compared with (token F1 depends strongly on length, so an
 * answer is only better than chance if it beats chance of its own length). Defined with the
 * reranker's target (src/engines/extractive/rerank/target.ts), which learns to beat the same baseline.
 */
export { lengthMatchedExcerpt, memorySentences, prng } from '../../src/engines/extractive/rerank/target.ts';
