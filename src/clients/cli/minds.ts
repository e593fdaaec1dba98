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
  const near = minds.slice(0, 5).map(describe).join(', ');
  throw new CliError(`No mind is named "${wanted}"${near ? ` (similar: ${near})` : ''}${opts.create === false ? '; pass --create to create it' : ''}`);
}
