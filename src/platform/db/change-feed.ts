/**
 * Notifications of committed changes, from PostgreSQL triggers (drizzle/0002_change_notifications.sql)
 * to every process: one dedicated connection, outside the pool, LISTENs on the channels. It is what
 * lets each replica cache reads although other replicas and workers write.
 *
 * Notifications sent while nobody listens are lost, so the feed reports when it is down (the
 * connection failed, ended, was terminated, or stopped answering pings) and when it is up again
 * (after LISTEN succeeded on a new connection); the caches stop serving in between. It reconnects
 * with exponential backoff. PgBouncer in transaction pooling mode cannot carry LISTEN: point
 * DATABASE_URL at PostgreSQL itself or at a session-mode pool.
 */
import type { Client } from 'pg';

export const CHANNEL = {
  /** Payload: an organization id whose minds (or their tags, snapshots, counts) changed. */
  minds: 'mindprint_minds',
  /** Payload: the hash of an API key that was created, revoked, changed or deleted. */
  keys: 'mindprint_keys',
} as const;

export interface ChangeFeedHandlers {
  notification(channel: string, payload: string): void;
  /** Changes may be missed from now until up(). */
  down(err: Error): void;
  /** Listening again: everything committed from now on is notified. */
  up(): void;
}

export interface ChangeFeedOptions {
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the idle connection is checked with a query (a dead TCP peer may stay silent). */
  pingMs?: number;
  pingTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export class ChangeFeed {
  private client: Client | null = null;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private listening = false;
  /** Backend pid of the listening connection (tests terminate it to simulate a failure). */
  backendPid: number | null = null;
  private readonly opts: Required<ChangeFeedOptions>;

  constructor(
    private readonly connect: () => Promise<Client>,
    private readonly channels: string[],
    private readonly handlers: ChangeFeedHandlers,
    opts: ChangeFeedOptions = {},
  ) {
    this.opts = { minBackoffMs: 100, maxBackoffMs: 5_000, pingMs: 10_000, pingTimeoutMs: 5_000, ...opts };
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Starts listening; resolves once listening, or after `waitMs` if the database does not let it yet. */
  async start(waitMs = 5_000): Promise<void> {
    let first!: () => void;
    const listening = new Promise<void>((resolve) => (first = resolve));
    this.loop = this.run(first);
    await Promise.race([listening, sleep(waitMs)]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.client?.end().catch(() => {});
    await this.loop;
  }

  private async run(onFirstListen: () => void): Promise<void> {
    let backoff = this.opts.minBackoffMs;
    while (!this.stopped) {
      let client: Client | null = null;
      let ping: NodeJS.Timeout | null = null;
      const reason = await new Promise<Error>((resolve) => {
        (async () => {
          client = await this.connect();
          this.client = client;
          client.on('error', resolve);
          client.on('end', () => resolve(new Error('the change feed connection ended')));
          client.on('notification', (msg) => this.handlers.notification(msg.channel, msg.payload ?? ''));
          for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
          if (this.stopped) return resolve(new Error('stopped'));
          this.backendPid = (client as unknown as { processID: number | null }).processID;
          this.listening = true;
          backoff = this.opts.minBackoffMs;
          this.handlers.up();
          onFirstListen();
          ping = setInterval(() => {
            const timeout = sleep(this.opts.pingTimeoutMs).then(() => {
              throw new Error('the change feed connection stopped answering');
            });
            Promise.race([client!.query('select 1'), timeout]).catch(resolve);
          }, this.opts.pingMs);
          ping.unref();
        })().catch(resolve);
      });
      if (ping) clearInterval(ping);
      const wasListening = this.listening;
      this.listening = false;
      this.backendPid = null;
      this.client = null;
      await (client as Client | null)?.end().catch(() => {});
      if (this.stopped) break;
      // Reported even if it never got to listen: the caller starts bypassed, and it is harmless twice.
      this.handlers.down(wasListening ? reason : new Error(`cannot listen for changes: ${reason.message}`));
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        void sleep(backoff).then(resolve);
      });
      this.wake = null;
      backoff = Math.min(backoff * 2, this.opts.maxBackoffMs);
    }
  }
}
