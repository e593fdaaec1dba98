/**
 * Real questions for the latency benches: the last question sentence of every turn not by `mind`
 * that asks one, from all six debates (2012 and 2016) of ../shared/data.
 */
import { readDebate, SHARED_TRANSCRIPTS } from '../../test/features/simulations/seed.ts';

export function debateQuestions(mind: string): string[] {
  const out = new Set<string>();
  for (const date of ['2012-10-03', '2012-10-16', '2012-10-22', '2016-09-26', '2016-10-09', '2016-10-19']) {
    for (const t of readDebate(date, SHARED_TRANSCRIPTS)) {
      if (t.speaker === mind) continue;
      const q = t.text.replace(/\s+/g, ' ').match(/[^.?!]{15,200}\?/g)?.at(-1)?.trim();
      if (q) out.add(q);
    }
  }
  return [...out];
}
