/**
 * Hybrid retrieval: the candidate memory for a message is the union of three rankings of the
 * mind's own turns in scope, fused with reciprocal rank fusion (Cormack, Clarke & Büttcher 2009):
 *
 *  - lexical: full-text search over what the person said (weight A) and the question it
 *    answered (B), at most MAX_CANDIDATES — BM25 over the scope's cached in-process index (the
 *    default: lexical-index.ts), or ts_rank order in the database;
 *  - semantic: vector similarity of the message to each turn's text (SEMANTIC_CANDIDATES);
 *  - question: vector similarity of the message to the question each turn answered — the
 *    person's answer to the question most like this one (SEMANTIC_CANDIDATES).
 *
 * The vector rankings run in the database with pgvector where it exists, and over the cached,
 * quantized in-process index otherwise; either way the candidates' rows come back in one
 * statement with every score (MemoryTurn.retrieval), their similarities to the query included.
 */
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import type { MemoryTurn } from '../../engines/types.ts';
import { isUuid } from '../../lib/uuid.ts';
import { inScope, toDate, type MindScope } from './scope.ts';
import type { LexicalIndex } from './lexical-index.ts';
import { vectorLiteral } from './vectors.ts';
import type { VectorIndex } from './vector-index.ts';

/** At most this many turns come from full-text search: enough for BM25 to rank, few enough to stay fast. */
export const MAX_CANDIDATES = 300;
/** Turns from each vector ranking (text, question). */
export const SEMANTIC_CANDIDATES = 60;
/** When nothing matches, the engine still gets the person's latest turns to say so in their voice. */
export const FALLBACK_TURNS = 40;
/** Reciprocal rank fusion's constant: 1 / (k + rank) per ranking. */
export const RRF_K = 60;

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

export interface SemanticQuery {
  /** The embedder's id: only vectors of this space are compared. */
  embedder: string;
  /** Unit query vector (the message, widened by the conversation for a follow-up). */
  vector: Float32Array;
  /** pgvector in the database, or the scope's in-process index. */
  search: { kind: 'pgvector' } | { kind: 'process'; index: VectorIndex };
  /** Per vector ranking (default SEMANTIC_CANDIDATES). */
  limit?: number;
}

export interface RetrieveOptions {
  /**
   * Turns an earlier answer of the conversation quoted: fetched whatever the terms, so a
   * follow-up can go on from what was said (at most MAX_CITED_TURNS).
   */
  citedTurnIds?: readonly string[];
  /** Also the person's turns around the cited ones (NEIGHBOURS before and after, same transcript): a follow-up goes on from there. */
  neighbours?: boolean;
  /** Add the opening turns of each conversation, where people introduce themselves (a greeting, "who are you?"). */
  openings?: boolean;
  /** Vector rankings beside the full-text one; without it, full text only. */
  semantic?: SemanticQuery | null;
  /**
   * The scope's in-process full-text index (src/features/memory/lexical-index.ts): the full-text ranking
   * comes from it instead of the database's ts_rank, and the candidates' rows from the turns it
   * holds (the database returns ids and ranks only). Without it, the database searches.
   */
  lexical?: LexicalIndex<MemoryTurn> | null;
}

/** How people say who they are: whole words, case-insensitive, in PostgreSQL's regular expressions (`\m…\M`) and in JavaScript's (`\b…\b`). */
const SELF_DESCRIPTION_WORDS = "(i['\u2019]m (a|an|the)|i am (a|an|the)|i['\u2019]ve (been|spent)|i have (been|spent)|my name is|my (job|work|career|company|background|role|profession))";
const SELF_DESCRIPTION = `\\m${SELF_DESCRIPTION_WORDS}\\M`;
const SELF_DESCRIPTION_JS = new RegExp(`\\b${SELF_DESCRIPTION_WORDS}\\b`, 'i');

/** Per in-process index (so per scope and fingerprint), its lists that do not depend on the message, computed once. */
const listsOf = new WeakMap<LexicalIndex<MemoryTurn>, { openings: string[]; selfDescriptions: string[]; latest: string[] }>();
function scopeLists(index: LexicalIndex<MemoryTurn>): { openings: string[]; selfDescriptions: string[]; latest: string[] } {
  let lists = listsOf.get(index);
  if (!lists) {
    lists = {
      openings: index.newest(OPENING_TURNS, (t) => t.seq < OPENING_SEQ),
      selfDescriptions: index.newest(OPENING_TURNS, (t) => SELF_DESCRIPTION_JS.test(t.text)),
      latest: index.newest(FALLBACK_TURNS, undefined, true),
    };
    listsOf.set(index, lists);
  }
  return lists;
}

/** At most this many quoted turns are fetched back for a follow-up. */
export const MAX_CITED_TURNS = 20;
/** The person's turns before and after a cited one (in its transcript) that come along for a follow-up, each way. */
export const NEIGHBOURS = 2;
/** Opening turns: the mind's turns among the first OPENING_SEQ of a transcript, at most OPENING_TURNS in all. */
export const OPENING_SEQ = 30;
export const OPENING_TURNS = 60;

interface TurnRow {
  id: string;
  snapshot_id: string;
  text: string;
  context: string | null;
  start_ms: number | null;
  seq: number;
  mindset_date: string | Date;
  unlabelled: boolean;
  reply_words: number | null;
  lrk: number | string | null;
  srk: number | string | null;
  qrk: number | string | null;
  /** Cosine similarity of the turn's text and of its question to the query (pgvector), else null. */
  sim: number | string | null;
  qsim: number | string | null;
}

/** `turns t join snapshots s … where` the turns are the person's own, in scope: add `and …` conditions after it. */
const mindTurnsInScope = (scope: MindScope): SQL => sql`turns t join snapshots s on s.id = t.snapshot_id
    where t.organization_id = ${scope.organizationId} and t.mind_id = ${scope.mindId} and t.is_mind and ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}`;

/** `{a,b,c}`: a PostgreSQL array literal of values that need no quoting (uuids, numbers). */
const arrayLiteral = (values: readonly (string | number)[]) => `{${values.join(',')}}`;

/**
 * Candidate memory: the mind's own turns in scope found by full text and (with
 * `options.semantic`) by vector similarity to what they said and to what they were asked, best
 * fused rank first. When no ranking finds anything, the latest FALLBACK_TURNS turns instead, in
 * the same statement. With `options`, also the turns the conversation quoted (and their
 * neighbours) and the opening turns of each transcript, without retrieval scores.
 *
 * Cost (bench/simulate.ts): in the database, the mind's turns are read through turns_mind_idx and
 * each one's stored tsv is tested (`@@`), the matches are ts_ranked and the best MAX_CANDIDATES
 * kept, and the candidates' text and context are read once; with the in-process index, a few
 * milliseconds and no scan in the database, which returns only ids and ranks (the index holds
 * the turns). The vector rankings add an exact scan of the mind's vectors (pgvector) or about a
 * millisecond in process.
 */
export async function retrieveMemory(db: Db, scope: MindScope, terms: readonly string[], options: RetrieveOptions = {}): Promise<MemoryTurn[]> {
  const query = tsQueryText(terms);
  const where = inScope(scope.organizationId, scope.mindId, scope.asOfDate);
  const turnsOf = mindTurnsInScope(scope);
  const semantic = options.semantic ?? null;
  const limit = semantic?.limit ?? SEMANTIC_CANDIDATES;

  // Each ranking: (id, rk), rk 1-based.
  const rankings: { name: 'lrk' | 'srk' | 'qrk'; body: SQL }[] = [];
  const hits = (found: { turnId: string; rank: number }[]) =>
    sql`select x.id, x.rk from unnest(${arrayLiteral(found.map((h) => h.turnId))}::uuid[], ${arrayLiteral(found.map((h) => h.rank))}::int[]) as x(id, rk)`;
  if (query && options.lexical) {
    rankings.push({ name: 'lrk', body: hits(options.lexical.search(terms, MAX_CANDIDATES)) });
  } else if (query) {
    rankings.push({
      name: 'lrk',
      body: sql`select h.id, row_number() over (order by h.rank desc, h.mindset_date desc, h.seq, h.id) as rk from (
        select t.id, ts_rank(t.tsv, q.q) as rank, s.mindset_date, t.seq
        from (select to_tsquery('english', ${query}) as q) q, ${turnsOf} and t.tsv @@ q.q
        order by rank desc, s.mindset_date desc, t.seq
        limit ${MAX_CANDIDATES}) h`,
    });
  }
  if (semantic && semantic.search.kind === 'pgvector') {
    const v = sql`${vectorLiteral(semantic.vector)}::vector`;
    const nearest = (column: 'text_vector' | 'context_vector') => sql`select x.id, row_number() over (order by x.distance, x.id) as rk from (
        select e.turn_id as id, e.${sql.raw(column)} <=> ${v} as distance
        from turn_embeddings e join snapshots s on s.id = e.snapshot_id
        where e.organization_id = ${scope.organizationId} and e.mind_id = ${scope.mindId} and e.embedder = ${semantic.embedder}
          and e.${sql.raw(column)} is not null and ${where}
        order by distance, e.turn_id
        limit ${limit}) x`;
    rankings.push({ name: 'srk', body: nearest('text_vector') }, { name: 'qrk', body: nearest('context_vector') });
  } else if (semantic && semantic.search.kind === 'process') {
    const { index } = semantic.search;
    rankings.push({ name: 'srk', body: hits(index.searchText(semantic.vector, limit)) }, { name: 'qrk', body: hits(index.searchContext(semantic.vector, limit)) });
  }

  const cited = [...new Set(options.citedTurnIds ?? [])].filter(isUuid).slice(0, MAX_CITED_TURNS);
  const extras: SQL[] = [];
  if (cited.length > 0) {
    const ids = sql`${arrayLiteral(cited)}::uuid[]`;
    extras.push(sql`select t.id from ${turnsOf} and t.id = any(${ids})`);
    if (options.neighbours) {
      // The person's turns just before and after each cited one (turns_snapshot_seq_key finds them).
      extras.push(sql`select t.id from ${turnsOf} and t.id in (
        select n.id from turns c, lateral (
          (select t2.id from turns t2 where t2.snapshot_id = c.snapshot_id and t2.is_mind and t2.seq < c.seq order by t2.seq desc limit ${NEIGHBOURS})
          union all
          (select t2.id from turns t2 where t2.snapshot_id = c.snapshot_id and t2.is_mind and t2.seq > c.seq order by t2.seq limit ${NEIGHBOURS})) n
        where c.id = any(${ids}))`);
    }
  }
  const held = options.lexical ?? null;
  const listed = (ids: readonly string[]) => sql`select x.id from unnest(${arrayLiteral(ids)}::uuid[]) as x(id)`;
  if (options.openings && held) {
    // The index holds the scope's turns: the same lists without reading every turn's text again
    // (the regular expression over 5.6k turns took ~85 ms on PGlite).
    const lists = scopeLists(held);
    extras.push(listed(lists.openings), listed(lists.selfDescriptions));
  } else if (options.openings) {
    extras.push(sql`select * from (select t.id from ${turnsOf} and t.seq < ${OPENING_SEQ}
      order by s.mindset_date desc, t.seq limit ${OPENING_TURNS}) o`);
    // Self-descriptions anywhere in the transcripts ("I'm the president", "my job is…"): words a
    // full-text query drops as stopwords, so a regular expression, over this mind's turns only.
    extras.push(sql`select * from (select t.id from ${turnsOf} and t.text ~* ${SELF_DESCRIPTION}
      order by s.mindset_date desc, t.seq limit ${OPENING_TURNS}) d`);
  }
  const fallback = held
    ? listed(scopeLists(held).latest)
    : sql`select * from (select t.id from ${turnsOf} order by s.mindset_date desc, t.seq desc limit ${FALLBACK_TURNS}) f`;

  const ctes: SQL[] = rankings.map((r) => sql`${sql.raw(r.name)} as (${r.body})`);
  const ranked = rankings.length
    ? sql`select u.id, min(u.lrk) as lrk, min(u.srk) as srk, min(u.qrk) as qrk from (
        ${sql.join(
          rankings.map((r) => sql`select id, ${r.name === 'lrk' ? sql`rk` : sql`null::bigint`} as lrk, ${r.name === 'srk' ? sql`rk` : sql`null::bigint`} as srk, ${r.name === 'qrk' ? sql`rk` : sql`null::bigint`} as qrk from ${sql.raw(r.name)}`),
          sql` union all `,
        )}) u group by u.id`
    : sql`select null::uuid as id, null::bigint as lrk, null::bigint as srk, null::bigint as qrk where false`;
  ctes.push(sql`ranked as (${ranked})`);
  // Nothing found by any ranking: the latest turns, so the engine can say so in the person's voice.
  ctes.push(sql`found as (select id, lrk, srk, qrk from ranked
    union all select id, null, null, null from (${fallback}) f where not exists (select 1 from ranked))`);
  const all = extras.length
    ? sql`select id, min(lrk) as lrk, min(srk) as srk, min(qrk) as qrk from (
        select * from found union all ${sql.join(extras.map((e) => sql`select id, null::bigint, null::bigint, null::bigint from (${e}) x`), sql` union all `)}
      ) a group by id`
    : sql`select * from found`;
  const index = semantic?.search.kind === 'process' ? semantic.search.index : null;
  const vector = semantic?.vector ?? null;
  // Each candidate's similarities to the query: from the in-process index, or as pgvector computed them in the statement.
  const similarity = (r: RankRow) => (index ? (vector ? index.similarity(r.id, vector) : null) : similarityOf(r, vector));
  if (held) {
    // The scope's turns are in the index already: the database says which and how they ranked.
    const ranks = rowsOf<RankRow>(
      await db.execute(sql`with ${sql.join(ctes, sql`, `)} select c.id, c.lrk, c.srk, c.qrk${similarities(semantic)} from (${all}) c ${embeddingJoin(semantic, sql`c.id`)}`),
    );
    const missing = ranks.filter((r) => !held.turn(r.id)).map((r) => r.id);
    // Only if the index was built a moment before a snapshot changed: read those rows.
    const read = missing.length ? new Map((await turnRows(db, scope, missing)).map((r) => [r.id, r])) : null;
    const turns: MemoryTurn[] = [];
    for (const r of ranks) {
      const turn = held.turn(r.id);
      const row = turn ? null : read?.get(r.id);
      if (turn) turns.push(withRetrieval({ ...turn }, r, similarity(r)));
      else if (row) turns.push(withRetrieval(toMemoryTurn(row, null), r, similarity(r)));
    }
    return turns.sort(byFusedRank);
  }
  const statement = sql`
    with ${sql.join(ctes, sql`, `)}
    ${selectTurns(semantic)}
    from (${all}) c join turns t on t.id = c.id join snapshots s on s.id = t.snapshot_id ${embeddingJoin(semantic)}`;
  const rows = rowsOf<TurnRow>(await db.execute(statement));
  return rows.map((r) => toMemoryTurn(r, similarity(r))).sort(byFusedRank);
}

/** A candidate's ranks and pgvector similarities (all of it, when the turns themselves are held in process). */
type RankRow = Pick<TurnRow, 'id' | 'lrk' | 'srk' | 'qrk' | 'sim' | 'qsim'>;

/**
 * The columns of a candidate: the turn, its snapshot's date, its ranks (from `c`) and, with
 * pgvector, its similarities to the query computed in the statement — two floats per row instead
 * of two 400-byte vectors to decode (on PGlite that halved the statement's time at 100 transcripts).
 */
function selectTurns(semantic: SemanticQuery | null): SQL {
  return sql`select t.id, t.snapshot_id, t.text, t.context, t.start_ms, t.seq, t.reply_words, s.mindset_date,
      s.speakers_labelled is false as unlabelled, c.lrk, c.srk, c.qrk${similarities(semantic)}`;
}

/** `, sim, qsim`: computed by pgvector (joined as `e`), or nulls when vectors are searched in process. */
const similarities = (semantic: SemanticQuery | null): SQL =>
  semantic?.search.kind === 'pgvector'
    ? sql`, 1 - (e.text_vector <=> ${vectorLiteral(semantic.vector)}::vector) as sim, 1 - (e.context_vector <=> ${vectorLiteral(semantic.vector)}::vector) as qsim`
    : sql`, null::float8 as sim, null::float8 as qsim`;

const embeddingJoin = (semantic: SemanticQuery | null, turnId: SQL = sql`t.id`): SQL =>
  semantic?.search.kind === 'pgvector' ? sql`left join turn_embeddings e on e.turn_id = ${turnId} and e.embedder = ${semantic.embedder}` : sql``;

/** The rows of the scope's turns with these ids (unranked; their ranks and similarities come with the ids). */
async function turnRows(db: Db, scope: MindScope, ids: readonly string[]): Promise<TurnRow[]> {
  return rowsOf<TurnRow>(
    await db.execute(sql`${selectTurns(null)}
      from (select null::bigint as lrk, null::bigint as srk, null::bigint as qrk) c, ${mindTurnsInScope(scope)} and t.id = any(${arrayLiteral(ids)}::uuid[])`),
  );
}

/** The similarities pgvector computed in the statement (null without a semantic query). */
function similarityOf(r: RankRow, vector: Float32Array | null): { text: number | null; context: number | null } | null {
  if (!vector) return null;
  return { text: r.sim === null ? null : Number(r.sim), context: r.qsim === null ? null : Number(r.qsim) };
}

const rankOf = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** `similarity`: of the turn's text and of its question to the query, when there was a semantic query. */
function toMemoryTurn(r: TurnRow, similarity: { text: number | null; context: number | null } | null): MemoryTurn {
  const turn: MemoryTurn = {
    turnId: r.id,
    snapshotId: r.snapshot_id,
    text: r.text,
    context: r.context,
    startMs: r.start_ms === null ? null : Number(r.start_ms),
    mindsetDate: toDate(r.mindset_date),
    seq: Number(r.seq),
    ...(r.unlabelled ? { unlabelled: true } : {}),
    ...(r.reply_words === null ? {} : { replyWords: Number(r.reply_words) }),
  };
  return withRetrieval(turn, r, similarity);
}

/** Sets `turn.retrieval` from its ranks (none: found for another reason — quoted, openings, fallback). */
function withRetrieval(turn: MemoryTurn, r: RankRow, similarity: { text: number | null; context: number | null } | null): MemoryTurn {
  const lexicalRank = rankOf(r.lrk);
  const semanticRank = rankOf(r.srk);
  const questionRank = rankOf(r.qrk);
  if (lexicalRank !== null || semanticRank !== null || questionRank !== null) {
    const rrf = (rank: number | null) => (rank === null ? 0 : 1 / (RRF_K + rank));
    turn.retrieval = {
      fused: rrf(lexicalRank) + rrf(semanticRank) + rrf(questionRank),
      lexicalRank,
      semanticRank,
      questionRank,
      semantic: similarity?.text ?? null,
      question: similarity?.context ?? null,
    };
  }
  return turn;
}

/** Best fused rank first; turns found by no ranking (quoted, openings, fallback) after, newest first. */
function byFusedRank(a: MemoryTurn, b: MemoryTurn): number {
  return (
    (b.retrieval?.fused ?? 0) - (a.retrieval?.fused ?? 0) ||
    b.mindsetDate.getTime() - a.mindsetDate.getTime() ||
    a.seq - b.seq ||
    (a.turnId < b.turnId ? -1 : 1)
  );
}

/**
 * Every turn of the mind in scope, in transcript order, without retrieval scores: for work done
 * once per mind and scope in the background (the per-mind reranker, src/features/memory/rerankers.ts),
 * never per request.
 */
export async function scopeTurns(db: Db, scope: MindScope): Promise<MemoryTurn[]> {
  const rows = rowsOf<TurnRow>(
    await db.execute(sql`${selectTurns(null)}
      from (select null::bigint as lrk, null::bigint as srk, null::bigint as qrk) c, ${mindTurnsInScope(scope)}
      order by s.mindset_date, t.snapshot_id, t.seq`),
  );
  return rows.map((r) => toMemoryTurn(r, null));
}

/** How many of the mind's turns are in scope (what an in-process index of the scope would hold). */
export async function scopeTurnCount(db: Db, scope: MindScope): Promise<number> {
  const rows = rowsOf<{ n: number | string }>(
    await db.execute(sql`select count(*) as n from ${mindTurnsInScope(scope)}`),
  );
  return Number(rows[0]?.n ?? 0);
}
