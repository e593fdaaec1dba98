/** Token F1 of a predicted answer against the real one: the reranker's own (src/engines/extractive/rerank/target.ts), so what is trained on is what is measured. */
export { tokenF1 } from '../../src/engines/extractive/rerank/target.ts';
