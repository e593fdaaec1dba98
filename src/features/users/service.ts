/** The users of the caller's organization: whom a simulation can be shared with. */
import { eq, sql } from 'drizzle-orm';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../platform/auth/authenticate.ts';
import { users } from '../../platform/db/schema.ts';
import { iso } from '../../platform/http/schemas.ts';
import { avatarDataUrl } from './avatar.ts';
import type { User } from './schemas.ts';

export const toUser = (u: { id: string; name: string; email: string; imageUrl: string | null; createdAt: string | Date }): User => ({
  id: u.id,
  name: u.name,
  email: u.email,
  imageUrl: u.imageUrl ?? avatarDataUrl(u),
  createdAt: iso(u.createdAt)!,
});

export async function listUsers({ db }: Pick<Deps, 'db'>, caller: Caller): Promise<User[]> {
  const rows = await db
    .select({ id: users.id, name: users.name, email: users.email, imageUrl: users.imageUrl, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.organizationId, caller.organizationId))
    .orderBy(sql`lower(${users.name})`, users.createdAt, users.id);
  return rows.map(toUser);
}
