/**
 * GET /minds/{id}/profile: the mind as of its linked, completed snapshots, through the one
 * profile loader (src/features/profile/inputs.ts: which snapshots count, their analysis rows in one
 * statement) and analysis/profile.ts (weights by words and recency).
 */
import { buildProfile, type MindProfile } from '../../lib/analysis/index.ts';
import type { Caller } from '../../platform/auth/authenticate.ts';
import type { Db } from '../../platform/db/client.ts';
import { loadProfileInputs } from './inputs.ts';
import { assertMindExists } from '../minds/index.ts';

export async function mindProfile(db: Db, caller: Caller, mindId: string): Promise<{ mindId: string; name: string; profile: MindProfile }> {
  const mind = await assertMindExists(db, caller, mindId);
  const { inputs } = await loadProfileInputs(db, { organizationId: caller.organizationId, mindId, asOfDate: null }, { evidence: true });
  return { mindId, name: mind.name, profile: buildProfile(inputs) };
}
