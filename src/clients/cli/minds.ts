/**
 * `--mind <mindId|name>`: an id is looked up directly; a name must match exactly one mind's name
 * exactly (found through GET /minds/search), so a script never acts on the wrong person.
 */
import { MindprintApiError, type Mind, type MindprintClient } from '@mindprint/client';
import { CliError, UUID_RE } from './env.ts';

export interface ResolvedMind {
  mind: Mind;
  /** True when `create` made it. */
  created: boolean;
}

const describe = (m: Mind) => `"${m.name}" (${m.id})`;

export async function resolveMind(client: MindprintClient, ref: string, opts: { create?: boolean } = {}): Promise<ResolvedMind> {
  const wanted = ref.trim();
  if (!wanted) throw new CliError('--mind must be a mind id or name');
  if (UUID_RE.test(wanted)) {
    try {
      return { mind: (await client.getMind(wanted)).mind, created: false };
    } catch (err) {
      if (err instanceof MindprintApiError && err.status === 404) throw new CliError(`No mind has the id ${wanted}`);
      throw err;
    }
  }
  const { minds } = await client.searchMinds(wanted);
  const exact = minds.filter((m) => m.name === wanted);
  if (exact.length === 1) return { mind: exact[0]!, created: false };
  if (exact.length > 1) {
    throw new CliError(`The name "${wanted}" is ambiguous: ${exact.length} minds have it (${exact.map((m) => m.id).join(', ')}); pass --mind <mindId>`);
  }
  const sameButCase = minds.filter((m) => m.name.toLowerCase() === wanted.toLowerCase());
  if (sameButCase.length) {
    // Creating "ada lovelace" beside "Ada Lovelace" would almost always be a mistake.
    throw new CliError(`No mind is named exactly "${wanted}", but ${sameButCase.map(describe).join(', ')} ${sameButCase.length > 1 ? 'are' : 'is'}; use the exact name or the id`);
  }
  if (opts.create) {
    const { mind } = await client.createMind({ name: wanted });
    return { mind, created: true };
  }
  // Search matches parts of names only, so a misspelling ("Jen Able" for "Jen Abel") finds
  // nothing there: then the closest names of all minds, by edit distance.
  const near = minds.length ? minds.slice(0, 5) : closest(wanted, (await client.listMinds({ limit: 1000 })).minds);
  const hint = near.length ? `; did you mean ${near.map(describe).join(' or ')}?` : '';
  throw new CliError(`No mind is named "${wanted}"${hint}${opts.create === false ? `${hint ? ' Or' : ';'} pass --create to create it` : ''}`);
}

/** The minds whose names are within a few typos of `name` (about one edit in four characters), closest first. */
function closest(name: string, minds: Mind[]): Mind[] {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 4));
  return minds
    .map((m) => ({ m, d: editDistance(wanted, m.name.toLowerCase()) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((x) => x.m);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours ("le" ↔ "el") count one each. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
