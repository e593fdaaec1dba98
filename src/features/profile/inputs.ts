/**
 * The profile loader — one for every reader: GET /minds/{id}/profile (with the evidence) and the
 * simulations' persona card (without it: the card quotes none, and it is most of the bytes). The
 * analysis rows of every snapshot in scope (inScope: completed, linked, as of a date), in one
 * statement, folded by analysis/profile.ts (weights by words and recency).
 */
import { sql } from 'drizzle-orm';
import { buildProfile, type MindProfile, type ProfileSnapshotInput } from '../../lib/analysis/index.ts';
import { personaFromProfile } from './persona.ts';
import { rowsOf, type Db } from '../../platform/db/client.ts';
import type { PersonaCard } from '../../engines/types.ts';
import { inScope, toDate, type MindScope } from '../memory/index.ts';
import { LRUCache } from 'lru-cache';

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

export interface ProfileScope {
  organizationId: string;
  mindId: string;
  /** Only snapshots with a mindsetDate up to this one; null for all. */
  asOfDate: Date | null;
}

/**
 * The analysis inputs of every snapshot in scope (oldest first) and the other speakers' labels.
 * Psychometrics and findings come in the order the analysis wrote them (one insert per snapshot,
 * so heap order, `ctid`): ids are random UUIDs and would shuffle the traits on every snapshot.
 */
export async function loadProfileInputs(db: Db, scope: ProfileScope, opts: { evidence: boolean }): Promise<{ inputs: ProfileSnapshotInput[]; otherSpeakers: string[] }> {
  const evidence = (column: string) => (opts.evidence ? sql.raw(`coalesce(${column}, '[]'::jsonb)`) : sql`'[]'::json`);
  const rows = rowsOf<ProfileRow>(
    await db.execute(sql`
      select s.id, s.speakers, s.mindset_date, s.mind_words,
        coalesce((select json_agg(json_build_object('instrument', p.instrument, 'name', p.name, 'score', p.score,
            'percentile', p.percentile, 'confidence', p.confidence, 'note', p.note, 'evidence', ${evidence('p.evidence')}) order by p.ctid)
          from psychometrics p where p.snapshot_id = s.id), '[]'::json) as psychometrics,
        coalesce((select json_agg(json_build_object('label', k.label, 'keywords', k.keywords, 'share', k.share,
            'sentiment', k.sentiment, 'evidence', ${evidence('k.evidence')}) order by k.rank)
          from key_topics k where k.snapshot_id = s.id), '[]'::json) as topics,
        coalesce((select json_agg(json_build_object('kind', f.kind, 'statement', f.statement, 'quote', f.quote,
            'turnId', f.turn_id, 'startMs', f.start_ms, 'polarity', f.polarity, 'confidence', f.confidence) order by f.ctid)
          from findings f where f.snapshot_id = s.id), '[]'::json) as findings
      from snapshots s
      where ${inScope(scope.organizationId, scope.mindId, scope.asOfDate)}
      order by s.mindset_date, s.created_at, s.id
    `),
  );
  const others = new Set<string>();
  for (const r of rows) for (const sp of r.speakers ? parsed(r.speakers) : []) if (!sp.isMind && sp.label) others.add(sp.label);
  const inputs = rows.map((r) => ({
    snapshotId: r.id,
    mindsetDate: toDate(r.mindset_date),
    mindWords: Number(r.mind_words),
    psychometrics: parsed(r.psychometrics),
    keyTopics: parsed(r.topics),
    findings: parsed(r.findings),
  }));
  return { inputs, otherSpeakers: [...others].sort() };
}

/** What a simulation knows about the person besides their turns: the profile, and who else spoke. */
export interface MindMaterial {
  profile: MindProfile;
  /** Speaker labels of the other people in the snapshots in scope (interviewers, moderators, opponents). */
  otherSpeakers: string[];
}

/** The profile of the snapshots in scope (without evidence) and the other speakers of those snapshots. */
export async function loadProfile(db: Db, scope: ProfileScope): Promise<MindMaterial> {
  const { inputs, otherSpeakers } = await loadProfileInputs(db, scope, { evidence: false });
  return { profile: buildProfile(inputs), otherSpeakers };
}

/**
 * Profiles by (mind, fingerprint). Safe across replicas without invalidation messages: the
 * fingerprint is read from the database on every request and changes whenever a snapshot in
 * scope is added, completed again, unlinked, relinked or deleted, so a stale entry is simply
 * never looked up again (and ages out of the LRU).
 */
export class PersonaCache {
  /** Loads per mind and snapshot fingerprint, the least recently used dropped past maxEntries. */
  private readonly entries: LRUCache<string, Promise<MindMaterial>>;
  constructor(maxEntries = 500) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  async persona(db: Db, scope: MindScope): Promise<PersonaCard> {
    return (await this.material(db, scope)).persona;
  }

  /** The persona card and the other speakers' names. */
  async material(db: Db, scope: MindScope): Promise<{ persona: PersonaCard; otherSpeakers: string[] }> {
    if (!scope.fingerprint) return { persona: personaFromProfile(scope.mindName, buildProfile([])), otherSpeakers: [] };
    const key = `${scope.mindId}/${scope.fingerprint}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const loading = loadProfile(db, scope);
      this.entries.set(key, loading);
      // A failed load must not be remembered.
      loading.catch(() => {
        if (this.entries.peek(key) === loading) this.entries.delete(key);
      });
      entry = loading;
    }
    // The name is not part of the key: renaming a mind takes effect at once.
    const { profile, otherSpeakers } = await entry;
    return { persona: personaFromProfile(scope.mindName, profile), otherSpeakers };
  }
}
