/**
 * The real conversations of ../shared/data/transcripts, parsed as the service parses uploads,
 * and the development split fixed BEFORE any tuning of the answer engine (issue 11):
 *
 *  - development (tune the engine, train the reranker): the 2012 debates (Barack H Obama,
 *    W Mitt Romney), Lex Fridman #429 and #489 (Paul Rosolie), Lenny's Podcast with Bob Moesta;
 *  - evaluation (reported, never tuned on): the 2016 debates (Donald J Trump, Hillary R
 *    Clinton), Lex Fridman #393 and #435 (Andrew Huberman), #400 and #438 (Elon Musk, Matthew
 *    MacDougall and the Neuralink team), Lenny's Podcast with Jen Abel and Sander Schulhoff.
 *
 * The split is by person and by conversation at once: nobody and no conversation is on both
 * sides, so a weight learned on development speech says nothing of an evaluation person.
 * Shared by bench/fidelity.ts and scripts/train-reranker.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseInThisThread } from '../../src/lib/ingest/parse.ts';
import type { SeedTurn } from '../../test/features/simulations/seed.ts';
import { SHARED_DATA_URL } from '../../test/support/shared-data.ts';

export type Split = 'development' | 'evaluation';

/** Conversation ids (as `loadConversations` names them) of the development split. */
export const DEVELOPMENT = new Set([
  'debate 2012-10-03',
  'debate 2012-10-16',
  'debate 2012-10-22',
  'lex 429-paul-rosolie',
  'lex 489-paul-rosolie',
  'lenny bob-moesta',
]);

export function splitOf(conversationId: string): Split {
  return DEVELOPMENT.has(conversationId) ? 'development' : 'evaluation';
}

/** Podcast guests: non-hosts with at least this many turns (not a sponsor read). */
export const MIN_GUEST_TURNS = 20;
const HOSTS = new Set(['Lex Fridman', 'Lenny Rachitsky', 'Lenny']);

export interface Conversation {
  id: string;
  date: Date;
  turns: SeedTurn[];
  /** The people interviewed (everyone else asks). */
  subjects: string[];
}

async function parse(url: URL): Promise<SeedTurn[]> {
  const transcript = await parseInThisThread(fileURLToPath(url), 'txt');
  return transcript.turns.map((t) => ({ speaker: t.speaker, text: t.text, startMs: t.startMs ?? null, ...(t.continues ? { continues: true as const } : {}) }));
}

/**
 * What the person really answered: the turn at `i` and the parts that continue it. Ingest cuts a
 * turn over 400 words into parts for retrieval; the answer to compare with is still the whole reply.
 */
export function wholeReply(turns: readonly SeedTurn[], i: number): string {
  const parts = [turns[i]!.text];
  for (let j = i + 1; j < turns.length && turns[j]!.continues; j++) parts.push(turns[j]!.text);
  return parts.join(' ');
}

/** Guests of a podcast: non-hosts with enough turns to be interviewed. */
function guests(turns: SeedTurn[]): string[] {
  const counts = new Map<string, number>();
  // Turns taken, not the parts ingest cut long ones into.
  for (const t of turns) if (!t.continues) counts.set(t.speaker, (counts.get(t.speaker) ?? 0) + 1);
  return [...counts].filter(([s, n]) => !HOSTS.has(s) && n >= MIN_GUEST_TURNS).map(([s]) => s).sort();
}

export async function loadConversations(): Promise<Conversation[]> {
  const DATA = new URL('transcripts/', SHARED_DATA_URL);
  const out: Conversation[] = [];
  const debates = new URL('us-presidential-debates/', DATA);
  for (const f of readdirSync(debates).filter((f) => f.endsWith('.said.txt')).sort()) {
    const meta = JSON.parse(readFileSync(new URL(f.replace('.said.txt', '.json'), debates), 'utf8')) as { speakers: { fullName: string; role: string }[] };
    const subjects = meta.speakers.filter((s) => /nominee/i.test(s.role)).map((s) => s.fullName);
    out.push({ id: `debate ${f.slice(0, 10)}`, date: new Date(`${f.slice(0, 10)}T00:00:00Z`), turns: await parse(new URL(f, debates)), subjects });
  }
  const lex = new URL('lex-fridman-podcast/', DATA);
  for (const f of readdirSync(lex).sort()) {
    const src = readFileSync(new URL(f, lex), 'utf8');
    const posted = /posted in .*? on \[([A-Z][a-z]+ \d+, \d{4})\]/.exec(src)?.[1];
    const turns = await parse(new URL(f, lex));
    out.push({ id: `lex ${f.replace('.txt', '')}`, date: new Date(`${posted ?? 'January 1, 2023'} UTC`), turns, subjects: guests(turns) });
  }
  const lenny = new URL('lennys-podcast/', DATA);
  for (const f of readdirSync(lenny).sort()) {
    const src = readFileSync(new URL(f, lenny), 'utf8');
    const date = /^publish_date: (\d{4}-\d\d-\d\d)/m.exec(src)?.[1] ?? '2024-01-01';
    const turns = await parse(new URL(f, lenny));
    out.push({ id: `lenny ${f.replace('.transcript.md.txt', '')}`, date: new Date(`${date}T00:00:00Z`), turns, subjects: guests(turns) });
  }
  return out;
}
