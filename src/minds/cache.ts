/**
 * A read cache for single minds, for the embedded database only. PGlite runs every query on the
 * server's own event loop (about 1 ms for a mind with its tags and counts), and the data dir is
 * locked to one process, so every write that can change a mind happens in this process and can
 * invalidate here. With PostgreSQL, other replicas and workers write too, so no cache is used.
 *
 * Invalidation is per organization: any write that may touch a mind of the organization (mind,
 * tag, snapshot, analysis) bumps its generation, and entries of an older generation are misses.
 * An entry records the generation read before its query ran, so a write that lands while the
 * query runs also makes it a miss.
 */
import type { Mind } from './schemas.ts';

interface Entry {
  generation: number;
  mind: Mind;
}

export class MindCache {
  private generations = new Map<string, number>();
  private entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  generation(organizationId: string): number {
    return this.generations.get(organizationId) ?? 0;
  }

  get(organizationId: string, mindId: string): Mind | null {
    const entry = this.entries.get(mindId);
    if (!entry || entry.mind.organizationId !== organizationId || entry.generation !== this.generation(organizationId)) return null;
    return entry.mind;
  }

  set(mind: Mind, generation: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(mind.id, { generation, mind });
  }

  invalidate(organizationId: string): void {
    this.generations.set(organizationId, this.generation(organizationId) + 1);
  }

  /** Loads through the cache: `load` runs on a miss. */
  async read(organizationId: string, mindId: string, load: () => Promise<Mind>): Promise<Mind> {
    const hit = this.get(organizationId, mindId);
    if (hit) return hit;
    const generation = this.generation(organizationId);
    const mind = await load();
    this.set(mind, generation);
    return mind;
  }
}
