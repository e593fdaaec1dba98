/**
 * The one definition of "a word" used everywhere (speaker summaries, inference of the mind,
 * analysis): a run of letters or digits, with inner apostrophes and hyphens kept inside the
 * word, so "don't", "well-known" and "2024" each count once and punctuation counts never.
 */
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text) !== null) n++;
  return n;
}
