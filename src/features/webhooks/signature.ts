/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a secret `whsec_<base64>`; each
 * message has an id (`webhook-id`, the same on every retry), the attempt's Unix time in seconds
 * (`webhook-timestamp`) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * keyed with the secret's decoded bytes.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (the spec asks for 24 to 64). */
export const newSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** A new message id; one per event, shared by its deliveries to every endpoint and their retries. */
export const newMessageId = (): string => `msg_${randomUUID().replaceAll('-', '')}`;

export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of one attempt. */
export function signedHeaders(secret: string, messageId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(secret, messageId, timestamp, body) };
}
