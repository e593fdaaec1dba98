/**
 * What a simulation knows about the person: which snapshots count (completed, linked, and —
 * "as of" a snapshot — none with a later mindsetDate), the candidate memory for a question (a
 * full-text search over the mind's own turns and the questions they answered), and the persona
 * card from the analysis of those snapshots. Each is one SQL statement.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { buildProfile, personaFromProfile, type MindProfile, type ProfileSnapshotInput } from '../analysis/index.ts';
import type { MemoryTurn, PersonaCard } from '../simulation/types.ts';
import { isUuid } from '../uuid.ts';

/** At most this many turns go to the engine: enough for BM25 to rank, few enough to stay fast. */
export const MAX_CANDIDATES = 300;
/** When nothing matches, the engine still gets the person's latest turns to say so in their voice. */
export const FALLBACK_TURNS = 40;

export interface MindScope {
  mindId: string;
  mindName: string;
  organizationId: string;
  defaultTwinId: string | null;
  /** The "as of" snapshot (validated to be this mind's), or null for all linked snapshots. */
  asOfSnapshotId: string | null;
  asOfDate: Date | null;
  /** Completed, linked snapshots in scope. */
  snapshotCount: number;
  /** The newest of them: the simulation's mindAssessmentId. */
  latestSnapshotId: string | null;
  /**
   * Changes whenever the set of snapshots in scope changes or one of them is reprocessed
   * (id, completedAt and updatedAt of each): the persona cache key.
   */
  fingerprint: string | null;
}

export type AsOfProblem = 'not_found' | 'other_mind';

/** The snapshots that count for a simulation, as a SQL condition on `s` (snapshots). */
function inScope(organizationId: string, mindId: string, asOfDate: Date | null): SQL {
  return sql`s.organization_id = ${organizationId} and s.mind_id = ${mindId} and s.status = 'completed' and s.linked
    ${asOfDate ? sql`and s.mindset_date <= ${asOfDate.toISOString()}::timestamptz` : sql``}`;
}

const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

/**
 * The mind (null when it is not in the organization) and its scope, in one statement. When the
 * as-of snapshot is unknown or belongs to another mind, `asOfProblem` says which.
 */
export async function loadMindScope(
  db: Db,
  organizationId: string,
  mindId: string,
  asOfSnapshotId: string | null,
): Promise<{ scope: MindScope; asOfProblem: AsOfProblem | null } | null> {
  const rows = rowsOf<{
    id: string;
    name: string;
    twin_id: string | null;
    as_of_mind_id: string | null;
    as_of_date: string | Date | null;
    snapshot_count: number | string;
    latest_id: string | null;
    fingerprint: string | null;
  }>(
    await db.execute(sql`
      with as_of as (
        select s.mind_id, s.mindset_date from snapshots s
        where s.id = ${asOfSnapshotId}::uuid and s.organization_id = ${organizationId}
      ),
      scope as (
        select s.id, s.mindset_date, s.completed_at, s.updated_at from snapshots s
        where s.organization_id = ${organizationId} and s.mind_id = ${mindId} and s.status = 'completed' and s.linked
          and (${asOfSnapshotId}::uuid is null
            or s.mindset_date <= (select a.mindset_date from as_of a where a.mind_id = ${mindId}))
      )
      select m.id, m.name,
        (select t.id from digital_twins t where t.mind_id = m.id and t.is_default order by t.created_at limit 1) as twin_id,
        (select a.mind_id from as_of a) as as_of_mind_id,
        (select a.mindset_date from as_of a) as as_of_date,
        (select count(*) from scope) as snapshot_count,
        (select sc.id from scope sc order by sc.mindset_date desc, sc.id desc limit 1) as latest_id,
        (select md5(string_agg(sc.id::text || '/' || coalesce(sc.completed_at::text, '') || '/' || sc.updated_at::text, ',' order by sc.id)) from scope sc) as fingerprint
      from minds m
      where m.id = ${mindId} and m.organization_id = ${organizationId}
    `),
  );
  const r = rows[0];
  if (!r) return null;
  let asOfProblem: AsOfProblem | null = null;
  if (asOfSnapshotId) {
    if (!r.as_of_mind_id) asOfProblem = 'not_found';
    else if (r.as_of_mind_id !== mindId) asOfProblem = 'other_mind';
  }
  return {
    asOfProblem,
    scope: {
      mindId: r.id,
      mindName: r.name,
      organizationId,
      defaultTwinId: r.twin_id,
      asOfSnapshotId: asOfProblem ? null : asOfSnapshotId,
      asOfDate: asOfSnapshotId && !asOfProblem && r.as_of_date ? toDate(r.as_of_date) : null,
      snapshotCount: Number(r.snapshot_count),
      latestSnapshotId: r.latest_id,
      fingerprint: r.fingerprint,
    },
  };
}

/**
 * Only letters and digits reach to_tsquery, joined with `|`: no operator or quote in a user's
 * message can change the query's meaning or make it fail to parse.
 */
export function tsQueryText(terms: readonly string[]): string {
  const word = (t: string) => t.normalize('NFKC').replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
  const ok = (w: string) => w.length >= 2 && w.length <= 64;
  const clean = terms.map((t) => {
    // Two words separated by a space are a phrase: "health care" is `(health <-> care)`.
    const parts = t.trim().split(/\s+/).map(word);
    if (parts.length === 2 && parts.every(ok)) return `(${parts[0]} <-> ${parts[1]})`;
    const w = word(t);
    return ok(w) ? w : '';
  });
  return [...new Set(clean.filter(Boolean))].join(' | ');
}

interface TurnRow {
  rank: number | string;
  id: string;
  snapshot_id: string;
  text: string;
  context: string | null;
  start_ms: number | null;
  seq: number;
  mindset_date: string | Date;
  unlabelled: boolean;
  reply_words: number | null;
}

export interface RetrieveOptions {
  /**
   * Turns an earlier answer of the conversation quoted: fetched whatever the terms, so a
   * follow-up can go on from what was said (at most MAX_CITED_TURNS).
   */
  citedTurnIds?: readonly string[];
  /** Add the opening turns of each conversation, where people introduce themselves (a greeting, "who are you?"). */
  openings?: boolean;
}

/** How people say who they are (PostgreSQL regular expression, case-insensitive). */
const SELF_DESCRIPTION = "\\m(i['\u2019]m (a|an|the)|i am (a|an|the)|i['\u2019]ve (been|spent)|i have (been|spent)|my name is|my (job|work|career|company|background|role|profession))\\M";

/** At most this many quoted turns are fetched back for a follow-up. */
export const MAX_CITED_TURNS = 20;
/** Opening turns: the mind's turns among the first OPENING_SEQ of a transcript, at most OPENING_TURNS in all. */
export const OPENING_SEQ = 30;
export const OPENING_TURNS = 60;

/**
 * Candidate memory for `terms`: the mind's own turns in scope matching any term (in what they
 * said, weight A, or in the question they answered, weight B), best ts_rank first, newest
 * mindset breaking ties; at most MAX_CANDIDATES. When nothing matches — or there are no terms —
 * the latest FALLBACK_TURNS turns instead, in the same statement. With `options`, also the
 * turns the conversation quoted and the opening turns of each transcript.
 *
 * Cost (bench/simulate.ts): the mind's turns are read through turns_mind_idx and each one's
 * stored tsv is tested (`@@`), the matches are ts_ranked and the best MAX_CANDIDATES returned with
 * their text and context. tsv is kept in the row (migration 0003), so none of this touches the
 * TOAST table but the returned texts. The planner takes the GIN index (ANDed with the mind's)
 * only for rare terms: a typical question's words match a large share of the mind's turns, and
 * the index's posting lists span every mind's and every speaker's turns.
 */
export async function retrieveMemory(db: Db, scope: MindScope, terms: readonly string[], options: RetrieveOptions = {}): Promise<MemoryTurn[]> {
  const query = tsQueryText(terms);
  const where = inScope(scope.organizationId, scope.mindId, scope.asOfDate);
  const turnsOf = sql`turns t join snapshots s on s.id = t.snapshot_id
    where t.organization_id = ${scope.organizationId} and t.mind_id = ${scope.mindId} and t.is_mind and ${where}`;
  const columns = sql`t.id, t.snapshot_id, t.text, t.context, t.start_ms, t.seq, t.reply_words, s.mindset_date, s.speakers_labelled is false as unlabelled`;
  const fallback = sql`select ${columns}, 0::real as rank
    from ${turnsOf}
    order by s.mindset_date desc, t.seq desc
    limit ${FALLBACK_TURNS}`;
  const cited = [...new Set(options.citedTurnIds ?? [])].filter(isUuid).slice(0, MAX_CITED_TURNS);
  const extras: SQL[] = [];
  if (cited.length > 0) {
    extras.push(sql`select ${columns}, 0::real as rank from ${turnsOf} and t.id in (${sql.join(cited.map((id) => sql`${id}::uuid`), sql`, `)})`);
  }
  if (options.openings) {
    extras.push(sql`select * from (select ${columns}, 0::real as rank from ${turnsOf} and t.seq < ${OPENING_SEQ}
      order by s.mindset_date desc, t.seq limit ${OPENING_TURNS}) o`);
    // Self-descriptions anywhere in the transcripts ("I'm the president", "my job is…"): words a
    // full-text query drops as stopwords, so a regular expression, over this mind's turns only.
    extras.push(sql`select * from (select ${columns}, 0::real as rank from ${turnsOf} and t.text ~* ${SELF_DESCRIPTION}
      order by s.mindset_date desc, t.seq limit ${OPENING_TURNS}) d`);
  }
  // Turns fetched for more than one reason come once (the best rank); without extras there is nothing to merge.
  const merged = (found: SQL) =>
    extras.length ? sql`select distinct on (u.id) * from (${found} union ${sql.join(extras, sql` union `)}) u order by u.id, u.rank desc` : found;
  const statement = query
    ? sql`
      with q as (select to_tsquery('english', ${query}) as q),
      hits as (
        select ${columns}, ts_rank(t.tsv, q.q) as rank
        from q, ${turnsOf} and t.tsv @@ q.q
        order by rank desc, s.mindset_date desc, t.seq
        limit ${MAX_CANDIDATES}
      ),
      found as (
        select * from hits
        union all
        select * from (${fallback}) f where not exists (select 1 from hits)
      )
      ${merged(sql`select * from found`)}`
    : merged(sql`select * from (${fallback}) f`);
  const rows = rowsOf<TurnRow>(await db.execute(statement));
  // Best match first, newest mindset breaking ties (the engine's ranking does not depend on it; an LLM's excerpts do).
  rows.sort((a, b) => Number(b.rank) - Number(a.rank) || toDate(b.mindset_date).getTime() - toDate(a.mindset_date).getTime() || Number(a.seq) - Number(b.seq) || (a.id < b.id ? -1 : 1));
  return rows.map((r) => ({
    turnId: r.id,
    snapshotId: r.snapshot_id,
    text: r.text,
    context: r.context,
    startMs: r.start_ms === null ? null : Number(r.start_ms),
    mindsetDate: toDate(r.mindset_date),
    seq: Number(r.seq),
    ...(r.unlabelled ? { unlabelled: true } : {}),
    ...(r.reply_words === null ? {} : { replyWords: Number(r.reply_words) }),
  }));
}

interface ProfileRow {
  id: string;
  speakers: { label: string; isMind: boolean }[] | string | null;
  mindset_date: string | Date;
  mind_words: number | string;
  psychometrics: ProfileSnapshotInput['psychometrics'] | string;
  topics: ProfileSnapshotInput['keyTopics'] | string;
  findings: ProfileSnapshotInput['findings'] | string;
}

const parsed = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** What a simulation knows about the person besides their turns: the profile, and who else spoke. */
export interface MindMaterial {
  profile: MindProfile;
  /** Speaker labels of the other people in the snapshots in scope (interviewers, moderators, opponents). */
  otherSpeakers: string[];
}

/**
 * The analysis rows of every snapshot in scope, in one statement, folded into a profile; and the
 * other speakers of those snapshots. Evidence is left out: the persona card does not quote it,
 * and it is most of the bytes.
 */
export async function loadProfile(db: Db, scope: MindScope): Promise<MindMaterial> {
  const rows = rowsOf<ProfileRow>(
    await db.execute(sql`
      select s.id, s.speakers, s.mindset_date, s.mind_words,
        coalesce((select json_agg(json_build_object('instrument', p.instrument, 'name', p.name, 'score', p.score,
            'percentile', p.percentile, 'confidence', p.confidence, 'note', p.note, 'evidence', '[]'::json) order by p.id)
          from psychometrics p where p.snapshot_id = s.id), '[]'::json) as psychometrics,
        coalesce((select json_agg(json_build_object('label', k.label, 'keywords', k.keywords, 'share', k.share,
            'sentiment', k.sentiment, 'evidence', '[]'::json) order by k.rank)
          from key_topics k where k.snapshot_id = s.id), '[]'::json) as topics,
        coalesce((select json_agg(json_build_object('kind', f.kind, 'statement', f.statement, 'quote', f.quote,
            'turnId', f.turn_id, 'startMs', f.start_ms, 'polarity', f.polarity, 'confidence', f.confidence) order by f.id)
          from findings f where f.snapshot_id = s.id), '[]'::json) as findings
      from snapshots s
      where ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}
    `),
  );
  const others = new Set<string>();
  for (const r of rows) for (const sp of (r.speakers ? parsed(r.speakers) : [])) if (!sp.isMind && sp.label) others.add(sp.label);
  const profile = buildProfile(
    rows.map((r) => ({
      snapshotId: r.id,
      mindsetDate: toDate(r.mindset_date),
      mindWords: Number(r.mind_words),
      psychometrics: parsed(r.psychometrics),
      keyTopics: parsed(r.topics),
      findings: parsed(r.findings),
    })),
  );
  return { profile, otherSpeakers: [...others].sort() };
}

/**
 * Profiles by (mind, fingerprint). Safe across replicas without invalidation messages: the
 * fingerprint is read from the database on every request and changes whenever a snapshot in
 * scope is added, completed again, unlinked, relinked or deleted, so a stale entry is simply
 * never looked up again (and ages out of the LRU).
 */
export class PersonaCache {
  private readonly entries = new Map<string, Promise<MindMaterial>>();
  constructor(private readonly maxEntries = 500) {}

  async persona(db: Db, scope: MindScope): Promise<PersonaCard> {
    return (await this.material(db, scope)).persona;
  }

  /** The persona card and the other speakers' names. */
  async material(db: Db, scope: MindScope): Promise<{ persona: PersonaCard; otherSpeakers: string[] }> {
    if (!scope.fingerprint) return { persona: personaFromProfile(scope.mindName, buildProfile([])), otherSpeakers: [] };
    const key = `${scope.mindId}/${scope.fingerprint}`;
    let entry = this.entries.get(key);
    if (entry) {
      // Refresh its place in the LRU order.
      this.entries.delete(key);
      this.entries.set(key, entry);
    } else {
      entry = loadProfile(db, scope);
      this.entries.set(key, entry);
      // A failed load must not be remembered.
      entry.catch(() => this.entries.delete(key));
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    // The name is not part of the key: renaming a mind takes effect at once.
    const { profile, otherSpeakers } = await entry;
    return { persona: personaFromProfile(scope.mindName, profile), otherSpeakers };
  }
}
