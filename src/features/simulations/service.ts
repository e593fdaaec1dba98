/**
 * Simulations as resources: list, get, delete, share with the organization's users
 * (features/users). A simulation is visible to its owner and to the users it is shared with; anyone else in
 * the organization gets 403, and another organization's simulation does not exist (404).
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import { simulations, simulationShares, users } from '../../platform/db/schema.ts';
import { forbidden, invalid, notFound } from '../../platform/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import { toUser } from '../users/index.ts';
import type { ListSimulationsQuery, Message, ShareBody, Simulation } from './schemas.ts';
import { failStaleMessages } from './state.ts';

export interface SimulationAccess {
  id: string;
  mindId: string;
  userId: string;
  model: string;
  asOfSnapshotId: string | null;
  isOwner: boolean;
}

/**
 * Who may do what with a simulation: 404 outside the organization, 403 for someone it is not
 * shared with, 403 for a non-owner when `ownerOnly` (deleting, sharing).
 */
export async function checkAccess(db: Db, caller: Caller, simulationId: string, opts: { ownerOnly?: boolean; action?: string } = {}): Promise<SimulationAccess> {
  const [row] = await db
    .select({
      id: simulations.id,
      mindId: simulations.mindId,
      userId: simulations.userId,
      model: simulations.model,
      asOfSnapshotId: simulations.asOfSnapshotId,
      shared: sql<boolean>`exists (select 1 from ${simulationShares} sh where sh.simulation_id = ${simulations.id} and sh.user_id = ${caller.userId})`,
    })
    .from(simulations)
    .where(and(eq(simulations.id, simulationId), eq(simulations.organizationId, caller.organizationId)));
  if (!row) throw notFound('Simulation');
  const isOwner = row.userId === caller.userId;
  if (!isOwner && !row.shared) throw forbidden('This simulation is neither yours nor shared with you');
  if (opts.ownerOnly && !isOwner) throw forbidden(`Only the owner of a simulation can ${opts.action ?? 'do that'}`);
  return { id: row.id, mindId: row.mindId, userId: row.userId, model: row.model, asOfSnapshotId: row.asOfSnapshotId, isOwner };
}

interface UserJson {
  id: string;
  name: string;
  email: string;
  imageUrl: string | null;
  createdAt: string;
}

interface SimulationRow {
  id: string;
  mind_id: string;
  mind_assessment_id: string;
  as_of_snapshot_id: string | null;
  digital_twin_id: string;
  organization_id: string;
  user_id: string;
  title: string;
  created_at: string | Date;
  updated_at: string | Date;
  owner: UserJson | string;
  shared: UserJson[] | string;
  total?: number | string;
}

const userJson = (alias: string) =>
  sql.raw(`json_build_object('id', ${alias}.id, 'name', ${alias}.name, 'email', ${alias}.email, 'imageUrl', ${alias}.image_url, 'createdAt', ${alias}.created_at)`);

/** A simulation's columns with its owner (`u`) and shared-with users, for rows `s` of simulations. */
const SIMULATION_COLUMNS = sql`s.id, s.mind_id, s.mind_assessment_id, s.as_of_snapshot_id, s.digital_twin_id, s.organization_id, s.user_id, s.title,
  s.created_at, s.updated_at, ${userJson('u')} as owner,
  coalesce((select json_agg(${userJson('su')} order by sh.created_at, su.id)
    from simulation_shares sh join users su on su.id = sh.user_id where sh.simulation_id = s.id), '[]'::json) as shared`;

const parsed = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function toSimulation(r: SimulationRow): Simulation {
  return {
    id: r.id,
    mindId: r.mind_id,
    mindAssessmentId: r.mind_assessment_id,
    asOfSnapshotId: r.as_of_snapshot_id,
    digitalTwinId: r.digital_twin_id,
    organizationId: r.organization_id,
    userId: r.user_id,
    user: toUser(parsed(r.owner)),
    sharedWithUsers: parsed(r.shared).map(toUser),
    title: r.title,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/**
 * What the caller sees, as two sets that never overlap (a simulation is not shared with its
 * owner): their own simulations (simulations_user_updated_idx, or with a mind
 * simulations_mind_user_updated_idx) and those shared with them (simulation_shares_user_idx).
 * One query with `owner or shared` could use neither index.
 */
function visibleTo(caller: Caller, mindId: string | undefined): { own: SQL; shared: SQL } {
  const mind = mindId ? sql` and s.mind_id = ${mindId}` : sql``;
  return {
    own: sql`simulations s where s.user_id = ${caller.userId} and s.organization_id = ${caller.organizationId}${mind}`,
    shared: sql`simulation_shares sh join simulations s on s.id = sh.simulation_id
      where sh.user_id = ${caller.userId} and s.organization_id = ${caller.organizationId} and s.user_id <> ${caller.userId}${mind}`,
  };
}

/** List order, by the selected columns' names (never ambiguous: output names come first in ORDER BY). */
const LAST_ACTIVE_FIRST = sql`updated_at desc, created_at desc, id desc`;

/**
 * A page of the caller's simulations, last activity first, and how many there are, in one
 * statement. Each set gives at most its first offset + limit rows, read in order from its index;
 * the page is cut from those, so a page costs what it skips and shows, not the whole list.
 */
export async function listSimulations(db: Db, caller: Caller, query: ListSimulationsQuery): Promise<{ simulations: Simulation[]; count: number }> {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const { own, shared } = visibleTo(caller, query.mindId);
  const total = sql`(select count(*) from ${own}) + (select count(*) from ${shared})`;
  const rows = rowsOf<SimulationRow>(
    await db.execute(sql`
      with candidates as (
        (select s.id, s.updated_at, s.created_at from ${own} order by ${LAST_ACTIVE_FIRST} limit ${offset + limit})
        union all
        (select s.id, s.updated_at, s.created_at from ${shared} order by ${LAST_ACTIVE_FIRST} limit ${offset + limit})
      ),
      page as (select * from candidates order by ${LAST_ACTIVE_FIRST} limit ${limit} offset ${offset})
      select ${SIMULATION_COLUMNS}, ${total} as total
      from page p join simulations s on s.id = p.id join users u on u.id = s.user_id
      order by p.updated_at desc, p.created_at desc, p.id desc`),
  );
  let count = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && offset > 0) {
    // Past the end: no row came back to carry the count.
    const [c] = rowsOf<{ n: number | string }>(await db.execute(sql`select ${total} as n`));
    count = Number(c?.n ?? 0);
  }
  return { simulations: rows.map(toSimulation), count };
}

/** The simulation object, no access check (callers have checked). */
export async function simulationById(db: Db, caller: Caller, simulationId: string): Promise<Simulation> {
  const [row] = rowsOf<SimulationRow>(
    await db.execute(sql`select ${SIMULATION_COLUMNS} from simulations s join users u on u.id = s.user_id
      where s.id = ${simulationId} and s.organization_id = ${caller.organizationId}`),
  );
  if (!row) throw notFound('Simulation');
  return toSimulation(row);
}

interface MessageRow {
  id: string;
  user_id: string;
  conversation_id: string;
  role: Message['role'];
  status: Message['status'];
  framework: string;
  version: string;
  content: Message['content'] | string;
  errors: Message['errors'] | string;
  created_at: string | Date;
  updated_at: string | Date;
  started_at: string | Date | null;
  completed_at: string | Date | null;
}

export async function messagesOf(db: Db, simulationId: string): Promise<Message[]> {
  const rows = rowsOf<MessageRow>(
    await db.execute(sql`
      select id, user_id, conversation_id, role, status, framework, version, content, errors, created_at, updated_at, started_at, completed_at
      from messages where conversation_id = ${simulationId} order by seq`),
  );
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    conversationId: r.conversation_id,
    role: r.role,
    status: r.status,
    framework: r.framework,
    version: r.version,
    content: r.content === null ? null : parsed(r.content),
    errors: r.errors === null ? null : parsed(r.errors),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    startedAt: iso(r.started_at),
    completedAt: iso(r.completed_at),
  }));
}

/** The conversation; with `limits`, its messages whose run cannot finish any more are failed first (state.ts). */
export async function getSimulation(s: Pick<Deps, 'db' | 'events'>, caller: Caller, simulationId: string, limits?: StaleLimits): Promise<{ simulation: Simulation; messages: Message[] }> {
  const { db } = s;
  await checkAccess(db, caller, simulationId);
  let [simulation, messages] = await Promise.all([simulationById(db, caller, simulationId), messagesOf(db, simulationId)]);
  if (limits && messages.some((m) => isStale(m, limits, Date.now())) && (await failStaleMessages(s, simulationId, limits)) > 0) {
    [simulation, messages] = await Promise.all([simulationById(db, caller, simulationId), messagesOf(db, simulationId)]);
  }
  return { simulation, messages };
}

function isStale(m: Message, limits: StaleLimits, now: number): boolean {
  if (m.status === 'streaming') return now - Date.parse(m.startedAt ?? m.createdAt) > limits.streamingMs;
  if (m.status === 'pending') return now - Date.parse(m.createdAt) > limits.pendingMs;
  return false;
}

export async function deleteSimulation(db: Db, caller: Caller, simulationId: string): Promise<void> {
  await checkAccess(db, caller, simulationId, { ownerOnly: true, action: 'delete it' });
  // Messages and shares go with it (foreign-key cascades).
  await db.delete(simulations).where(and(eq(simulations.id, simulationId), eq(simulations.organizationId, caller.organizationId)));
}

export async function shareSimulation(db: Db, caller: Caller, simulationId: string, body: ShareBody): Promise<Simulation> {
  const access = await checkAccess(db, caller, simulationId, { ownerOnly: true, action: 'share it' });
  const ids = [...new Set(body.userIds ?? [])];
  const emails = [...new Set((body.emails ?? []).map((e) => e.trim().toLowerCase()))];
  if (ids.length === 0 && emails.length === 0) throw invalid('body must name at least one user in userIds or emails', { field: 'body' });
  const found = await db
    .select({ id: users.id, email: sql<string>`lower(${users.email})` })
    .from(users)
    .where(
      and(
        eq(users.organizationId, caller.organizationId),
        sql`(${ids.length ? sql`${users.id} in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})` : sql`false`}
          or ${emails.length ? sql`lower(${users.email}) in (${sql.join(emails.map((e) => sql`${e}`), sql`, `)})` : sql`false`})`,
      ),
    );
  const unknown = [...ids.filter((i) => !found.some((f) => f.id === i)), ...emails.filter((e) => !found.some((f) => f.email === e))];
  if (unknown.length) {
    throw invalid(`Not users of your organization: ${unknown.join(', ')}`, { field: 'body', unknown });
  }
  // The owner always sees their simulation; a share with themselves means nothing.
  const targets = found.map((f) => f.id).filter((id) => id !== access.userId);
  if (targets.length) {
    await db
      .insert(simulationShares)
      .values(targets.map((userId) => ({ simulationId, userId })))
      .onConflictDoNothing();
  }
  return simulationById(db, caller, simulationId);
}

export async function unshareSimulation(db: Db, caller: Caller, simulationId: string, userId: string): Promise<Simulation> {
  await checkAccess(db, caller, simulationId, { ownerOnly: true, action: 'change who it is shared with' });
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.organizationId, caller.organizationId)));
  if (!user) throw notFound('User');
  // Idempotent: removing a user it is not shared with changes nothing.
  await db.delete(simulationShares).where(and(eq(simulationShares.simulationId, simulationId), eq(simulationShares.userId, userId)));
  return simulationById(db, caller, simulationId);
}

// ───────────── runs that lost their process ─────────────

export interface StaleLimits {
  /** A `streaming` message older than this lost the request that was producing it. */
  streamingMs: number;
  /** A `pending` message older than this outlived every attempt its job could make. */
  pendingMs: number;
}

export function staleLimits(config: Config, retryLimit: number): StaleLimits {
  // Two model calls (answer, analysis), each bounded by the LLM timeout; extractive runs take milliseconds.
  const streamingMs = config.llm ? 2 * config.llm.timeoutMs + 60_000 : 5 * 60_000;
  const attempts = (retryLimit + 1) * Math.max(config.jobExpireSeconds * 1000, streamingMs);
  return { streamingMs, pendingMs: Math.max(60 * 60_000, attempts + 5 * 60_000) };
}
