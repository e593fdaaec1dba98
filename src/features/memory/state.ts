/** The state of a mind's semantic index, for GET /minds/{mindId}/semantic-index. */
import { sql } from 'drizzle-orm';
import type { Caller } from '../../platform/auth/authenticate.ts';
import { rowsOf } from '../../platform/db/client.ts';
import { iso } from '../../platform/http/schemas.ts';
import { assertMindExists } from '../minds/index.ts';
import type { SemanticIndexResponse } from './schemas.ts';
import type { Memory } from './service.ts';

export async function semanticIndexState(memory: Memory, caller: Caller, mindId: string): Promise<SemanticIndexResponse> {
  await assertMindExists(memory.db, caller, mindId);
  const id = memory.embedder.id;
  const [r] = rowsOf<{
    total: number | string;
    embedded: number | string;
    failed: number | string;
    last_embedded_at: string | Date | null;
    turns: number | string;
    embedded_turns: number | string;
    errors: { snapshotId: string; message: string }[] | string | null;
  }>(
    await memory.db.execute(sql`
      with s as (
        select id, embedder = ${id} and embedded_at is not null as done, embedding_error, embedded_at
        from snapshots where organization_id = ${caller.organizationId} and mind_id = ${mindId} and status = 'completed'
      )
      select (select count(*) from s) as total,
        (select count(*) from s where done) as embedded,
        (select count(*) from s where not done and embedding_error is not null) as failed,
        (select max(embedded_at) from s where done) as last_embedded_at,
        (select count(*) from turns t where t.mind_id = ${mindId} and t.organization_id = ${caller.organizationId} and t.is_mind
          and t.snapshot_id in (select id from s)) as turns,
        (select count(*) from turn_embeddings e where e.mind_id = ${mindId} and e.organization_id = ${caller.organizationId} and e.embedder = ${id}
          and e.snapshot_id in (select id from s)) as embedded_turns,
        (select json_agg(json_build_object('snapshotId', id, 'message', embedding_error) order by id) from s where not done and embedding_error is not null) as errors`),
  );
  const total = Number(r!.total);
  const embedded = Number(r!.embedded);
  const failed = Number(r!.failed);
  const pending = total - embedded - failed;
  const status = total === 0 ? 'empty' : pending > 0 ? 'indexing' : failed > 0 ? 'failed' : 'ready';
  const errors = r!.errors === null ? [] : typeof r!.errors === 'string' ? (JSON.parse(r!.errors) as { snapshotId: string; message: string }[]) : r!.errors;
  return {
    mindId,
    status,
    embedder: { id, dimensions: memory.embedder.dimensions || null, offline: !id.startsWith('openai-compatible:') },
    vectorSearch: await memory.vectorSearch(),
    snapshots: { total, embedded, pending, failed },
    turns: { total: Number(r!.turns), embedded: Number(r!.embedded_turns) },
    lastEmbeddedAt: iso(r!.last_embedded_at),
    errors,
  };
}
