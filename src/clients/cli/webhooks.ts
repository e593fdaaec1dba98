/**
 * `mindprint webhooks add|list|remove|test`: the organization's webhook endpoints over the API.
 * `add` prints the signing secret once (on stdout, so it can be captured); `test` sends a signed
 * test message and exits with 1 when the endpoint did not take it.
 */
import type { MindprintClient, Webhook, WebhookDelivery, WebhookEventType } from '@mindprint/client';
import { CliError, clientFromEnv, describeError } from './env.ts';

export const WEBHOOK_EVENTS: WebhookEventType[] = ['snapshot.completed', 'snapshot.failed', 'snapshot.reprocessing', 'snapshot.indexed', 'simulation.completed', 'simulation.failed', 'mind.deleted'];

async function call<T>(env: NodeJS.ProcessEnv, body: (client: MindprintClient) => Promise<T>): Promise<T> {
  const client = clientFromEnv(env);
  try {
    return await body(client);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(describeError(err, env.MINDPRINT_URL ?? 'http://127.0.0.1:3000'));
  }
}

function parseEvents(raw: string): WebhookEventType[] {
  const wanted = raw.split(',').map((e) => e.trim()).filter(Boolean);
  const events = wanted.includes('all') ? WEBHOOK_EVENTS : wanted;
  const unknown = events.filter((e) => !(WEBHOOK_EVENTS as string[]).includes(e));
  if (unknown.length) throw new CliError(`unknown event ${unknown.join(', ')}: expected some of ${WEBHOOK_EVENTS.join(', ')} (or all)`);
  if (!events.length) throw new CliError('--events names no event');
  return [...new Set(events)] as WebhookEventType[];
}

const line = (w: Webhook) =>
  `${w.id}  ${w.status === 'active' ? 'active  ' : 'DISABLED'}  ${w.url}  [${w.events.join(', ')}]${w.description ? `  ${w.description}` : ''}${w.disabledReason ? `\n    ${w.disabledReason}` : ''}`;

const outcome = (d: WebhookDelivery) =>
  `${d.status}${d.statusCode !== null ? ` (HTTP ${d.statusCode}` : ' ('}${d.durationMs !== null ? `${d.statusCode !== null ? ', ' : ''}${d.durationMs} ms` : ''})${d.error ? `: ${d.error}` : ''}`;

export async function runWebhooksAdd(url: string, opts: { events: string; description?: string; json?: boolean }, env: NodeJS.ProcessEnv): Promise<number> {
  const events = parseEvents(opts.events);
  const created = await call(env, (c) => c.createWebhook({ url, events, ...(opts.description !== undefined && { description: opts.description }) }));
  if (opts.json) process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  else {
    process.stderr.write(`Webhook ${created.webhook.id} created for ${created.webhook.events.join(', ')}. Its signing secret, shown only now:\n`);
    process.stdout.write(`${created.secret}\n`);
  }
  return 0;
}

export async function runWebhooksList(opts: { json?: boolean }, env: NodeJS.ProcessEnv): Promise<number> {
  const { webhooks } = await call(env, (c) => c.listWebhooks());
  if (opts.json) process.stdout.write(`${JSON.stringify({ webhooks }, null, 2)}\n`);
  else if (!webhooks.length) process.stderr.write('No webhooks.\n');
  else process.stdout.write(`${webhooks.map(line).join('\n')}\n`);
  return 0;
}

export async function runWebhooksRemove(id: string, env: NodeJS.ProcessEnv): Promise<number> {
  await call(env, (c) => c.deleteWebhook(id));
  process.stderr.write(`Webhook ${id} removed.\n`);
  return 0;
}

export async function runWebhooksTest(id: string, opts: { json?: boolean }, env: NodeJS.ProcessEnv): Promise<number> {
  const { delivery } = await call(env, (c) => c.testWebhook(id));
  if (opts.json) process.stdout.write(`${JSON.stringify({ delivery }, null, 2)}\n`);
  else process.stdout.write(`${outcome(delivery)}\n`);
  return delivery.status === 'succeeded' ? 0 : 1;
}
