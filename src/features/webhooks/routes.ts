import { Type } from 'typebox';
import type { Routes } from '../../deps.ts';
import { errorResponses, SuccessResponse } from '../../platform/http/schemas.ts';
import { CreatedWebhook, CreateWebhookBody, DeliveriesQuery, UpdateWebhookBody, Webhook, WebhookDelivery, WebhookParams } from './schemas.ts';
import * as service from './service.ts';

const TARGETS =
  'The URL must be http(s) and its host must resolve only to public addresses: loopback, private, link-local (cloud metadata), ' +
  'carrier-grade NAT, multicast and reserved addresses, IPv4 and IPv6 (IPv4-mapped included), are refused with 400 unless the server sets ' +
  '`MINDPRINT_WEBHOOKS_ALLOW_PRIVATE=true`. The check is made again at every delivery.';

export const webhookRoutes: Routes = async (app, { deps: ctx }) => {
  const { db } = ctx;
  const tags = ['Webhooks'];

  app.post('/webhooks', {
    schema: {
      tags,
      summary: 'Register a webhook',
      description: `An endpoint to which the organization's domain events are POSTed, signed per Standard Webhooks. ${TARGETS} The signing secret (\`whsec_…\`) is in this answer only.`,
      body: CreateWebhookBody,
      response: { 200: CreatedWebhook, ...errorResponses(413, 415) },
    },
  }, async (req) => service.createWebhook(ctx, req.caller, req.body));

  app.get('/webhooks', {
    schema: { tags, summary: 'List webhooks', description: "The organization's webhooks, newest first; secrets are never returned.", response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...errorResponses() } },
  }, async (req) => ({ webhooks: await service.listWebhooks(db, req.caller) }));

  app.get('/webhooks/:webhookId', {
    schema: { tags, summary: 'Get a webhook', params: WebhookParams, response: { 200: Type.Object({ webhook: Webhook }), ...errorResponses(404) } },
  }, async (req) => ({ webhook: await service.getWebhook(db, req.caller, req.params.webhookId) }));

  app.patch('/webhooks/:webhookId', {
    schema: {
      tags,
      summary: 'Change a webhook',
      description: `Any of \`url\`, \`events\`, \`description\`, \`status\`. \`status: "active"\` enables a disabled endpoint again (and forgets its failures); \`"disabled"\` stops deliveries. ${TARGETS}`,
      params: WebhookParams,
      body: UpdateWebhookBody,
      response: { 200: Type.Object({ webhook: Webhook }), ...errorResponses(404, 413, 415) },
    },
  }, async (req) => ({ webhook: await service.updateWebhook(ctx, req.caller, req.params.webhookId, req.body) }));

  app.delete('/webhooks/:webhookId', {
    schema: { tags, summary: 'Delete a webhook', description: 'Its deliveries go with it; messages not yet delivered are not sent.', params: WebhookParams, response: { 200: SuccessResponse, ...errorResponses(404) } },
  }, async (req) => {
    await service.deleteWebhook(db, req.caller, req.params.webhookId);
    return { success: true };
  });

  app.get('/webhooks/:webhookId/deliveries', {
    schema: {
      tags,
      summary: "List a webhook's deliveries",
      description: 'Newest first, kept 30 days: the event, the outcome of the last attempt (status code, duration, error, the start of the answer) and when the next attempt is due.',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: Type.Object({ deliveries: Type.Array(WebhookDelivery), count: Type.Integer({ description: 'All deliveries of the webhook' }) }), ...errorResponses(404) },
    },
  }, async (req) => service.listDeliveries(db, req.caller, req.params.webhookId, req.query));

  app.post('/webhooks/:webhookId/test', {
    schema: {
      tags,
      summary: 'Send a test message',
      description: 'POSTs a signed `webhook.test` message to the endpoint now (also when it is disabled) and answers with the delivery as it ended: one attempt, at most 10 s, no retry.',
      params: WebhookParams,
      response: { 200: Type.Object({ delivery: WebhookDelivery }), ...errorResponses(404, 413, 415) },
    },
  }, async (req) => ({ delivery: await service.testWebhook(ctx, req.caller, req.params.webhookId) }));
};
