/** Quotes for evidence: verbatim excerpts of a turn, cut at sentence boundaries. */
import type { SentenceSpan } from './nlp.ts';

export const MAX_QUOTE_CHARS = 320;

/**
 * The sentences `from`…`to` of a turn, as one verbatim slice of the turn text, shortened to whole
 * sentences within MAX_QUOTE_CHARS (a single over-long sentence is cut at a word boundary).
 */
export function quoteSentences(text: string, sentences: SentenceSpan[], from = 0, to = sentences.length - 1): string {
  const first = sentences[from];
  if (!first) return text.slice(0, MAX_QUOTE_CHARS).trim();
  let end = first.start + first.text.length;
  for (let i = from + 1; i <= to; i++) {
    const s = sentences[i]!;
    const next = s.start + s.text.length;
    if (next - first.start > MAX_QUOTE_CHARS) break;
    end = next;
  }
  let quote = text.slice(first.start, end);
  if (quote.length > MAX_QUOTE_CHARS) {
    const cut = quote.lastIndexOf(' ', MAX_QUOTE_CHARS);
    quote = quote.slice(0, cut > 40 ? cut : MAX_QUOTE_CHARS);
  }
  return quote.trim();
}
