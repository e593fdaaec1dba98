/**
 * Evidence for an LLM answer: the excerpts the model says the answer rests on, checked against
 * memory. A citation counts only if its turnId was among the excerpts shown; its quote is kept
 * only if it is an exact substring of the turn, otherwise the turn's own text stands in. So
 * every quote returned is verbatim what the person said, whatever the model wrote.
 */
import type { Evidence, MemoryTurn } from '../types.ts';

export interface Citation {
  turnId: string;
  quote: string;
}

export const MAX_EVIDENCE = 5;
/** When the model cites nothing usable, the top-ranked excerpts stand in. */
const FALLBACK_EVIDENCE = 3;
const MAX_QUOTE_CHARS = 600;

export function resolveEvidence(citations: readonly Citation[], excerpts: readonly MemoryTurn[]): Evidence[] {
  const byId = new Map(excerpts.map((turn) => [turn.turnId, turn]));
  const evidence: Evidence[] = [];
  const seen = new Set<string>();
  for (const citation of citations) {
    const turnId = citation.turnId.trim();
    const turn = byId.get(turnId);
    if (!turn || seen.has(turnId)) continue;
    seen.add(turnId);
    evidence.push(toEvidence(turn, exactQuote(citation.quote, turn.text)));
    if (evidence.length === MAX_EVIDENCE) break;
  }
  if (evidence.length > 0) return evidence;
  return excerpts.slice(0, FALLBACK_EVIDENCE).map((turn) => toEvidence(turn, null));
}

function toEvidence(turn: MemoryTurn, quote: string | null): Evidence {
  return { turnId: turn.turnId, snapshotId: turn.snapshotId, quote: quote ?? leadingQuote(turn.text), startMs: turn.startMs };
}

/** The model's quote if it really occurs in the turn (ignoring surrounding whitespace and quote marks). */
function exactQuote(quote: string, text: string): string | null {
  const candidate = quote.trim().replace(/^["“'‘]+|["”'’]+$/g, '').trim();
  if (candidate.length === 0) return null;
  return text.includes(candidate) ? candidate : null;
}

/** The turn itself, or for long turns its opening cut at a sentence end: still an exact substring. */
function leadingQuote(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= MAX_QUOTE_CHARS) return trimmed;
  const head = trimmed.slice(0, MAX_QUOTE_CHARS);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentenceEnd > MAX_QUOTE_CHARS / 3) return head.slice(0, sentenceEnd + 1);
  const space = head.lastIndexOf(' ');
  return space > 0 ? head.slice(0, space) : head;
}
