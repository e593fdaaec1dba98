/** Throwaway PostgreSQL databases for tests and benchmarks: created on the admin connection, dropped with force. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
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

/** The PostgreSQL server binaries (initdb, pg_ctl) of this machine, newest version first, or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin/pg_ctl')) && existsSync(path.join(root, v, 'bin/initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

/**
 * A throwaway PostgreSQL server of our own, in a temp directory on a free port: restarting the
 * machine's shared server would break everyone else's work. initdb refuses to run as root, so as
 * root it runs as the `postgres` user.
 */
export async function ownPostgres(bin: string) {
  const run = promisify(execFile);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mp-pg-restart-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pgCmd = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]) : run(path.join(bin, cmd), args));
  const data = path.join(dir, 'data');
  await pgCmd('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (...args: string[]) => pgCmd('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', ...args]);
  await ctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => ctl('stop', '-m', 'fast'),
    start: () => ctl('start'),
    async destroy() {
      await ctl('stop', '-m', 'immediate').catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
