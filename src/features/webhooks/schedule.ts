/**
 * When a failed delivery is tried again, and when an endpoint that keeps failing is disabled:
 * the schedule Standard Webhooks suggests (and Svix uses) — at once, then after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h: eight attempts over about 27 hours, each delay ±10 % so that the
 * retries of one outage do not arrive together.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** An endpoint whose every attempt has failed for this long is disabled (it says so in `disabledReason`). */
export const DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/** Finished deliveries are kept this long for GET /webhooks/{id}/deliveries. */
export const DELIVERY_RETENTION_DAYS = 30;

/** When the attempt after `attemptsMade` failed attempts is due, or null when there is none. */
export function nextAttemptAt(attemptsMade: number, now: Date, random: () => number = Math.random): Date | null {
  const delay = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  if (delay === undefined) return null;
  return new Date(now.getTime() + Math.round(delay * 1000 * (0.9 + 0.2 * random())));
}
