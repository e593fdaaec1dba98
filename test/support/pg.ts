/** Throwaway PostgreSQL databases for tests and benchmarks: created on the admin connection, dropped with force. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ThrowawayDatabase {
  url: string;
  name: string;
  /** The server's version, e.g. "15.19". */
  serverVersion: string;
  drop(): Promise<void>;
}

export async function createThrowawayDatabase(adminUrl: string, prefix = 'mp_test'): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const serverVersion = (await admin.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    serverVersion,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
