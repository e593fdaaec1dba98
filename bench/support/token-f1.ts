/** Token F1 of a predicted answer against the real one (SQuAD-style: multiset overlap of tokens). */
export function tokenF1(pred: readonly string[], gold: readonly string[]): number {
  if (!pred.length || !gold.length) return 0;
  const counts = new Map<string, number>();
  for (const g of gold) counts.set(g, (counts.get(g) ?? 0) + 1);
  let common = 0;
  for (const p of pred) {
    const c = counts.get(p) ?? 0;
    if (c > 0) {
      common++;
      counts.set(p, c - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / pred.length;
  const recall = common / gold.length;
  return (2 * precision * recall) / (precision + recall);
}
