import { Type, type Static } from 'typebox';
import { EVENT_TYPES } from '../../platform/events/index.ts';
import { Nullable, Timestamp, Uuid, named } from '../../platform/http/schemas.ts';

/** The type of the message POST /webhooks/{id}/test sends. */
export const TEST_EVENT = 'webhook.test';

export const WebhookEventType = named('WebhookEventType', Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), {
  description: 'A domain event a webhook can subscribe to',
  example: 'snapshot.completed',
}));

export const WebhookStatus = named('WebhookStatus', Type.Union([Type.Literal('active'), Type.Literal('disabled')], {
  description: '`disabled`: no message is delivered (by a user, or because every delivery failed for 5 days: see `disabledReason`)',
  example: 'active',
}));

const Url = Type.String({ minLength: 1, maxLength: 2048, example: 'https://hooks.example.org/mindprint' });
const Description = Type.String({ maxLength: 500, example: 'Reindex the CRM when a transcript is processed' });
const Events = Type.Array(WebhookEventType, { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, description: 'The events to deliver' });

export const Webhook = named('Webhook', Type.Object({
  id: Uuid,
  url: Url,
  description: Nullable(Description),
  events: Type.Array(WebhookEventType),
  status: WebhookStatus,
  disabledReason: Nullable(Type.String({ description: 'Why the endpoint is disabled', example: 'Every delivery failed for 5 days (last: answered 500)' })),
  disabledAt: Nullable(Timestamp),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'The first failed attempt since the last success: failing for 5 days disables the endpoint' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));
export type Webhook = Static<typeof Webhook>;

export const CreateWebhookBody = named('CreateWebhookRequest', Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
}, { additionalProperties: false }));
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = named('UpdateWebhookRequest', Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Nullable(Description)),
  status: Type.Optional(WebhookStatus),
}, { additionalProperties: false, minProperties: 1 }));
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const CreatedWebhook = named('CreatedWebhook', Type.Object({
  webhook: Webhook,
  secret: Type.String({ description: 'The signing secret (Standard Webhooks): shown this once, never again', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}));

export const DeliveryStatus = named('WebhookDeliveryStatus', Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
  description: '`pending`: waiting for its next attempt (`nextAttemptAt`); `failed`: every attempt failed, or the endpoint was disabled',
  example: 'succeeded',
}));

export const WebhookDelivery = named('WebhookDelivery', Type.Object({
  id: Uuid,
  webhookId: Uuid,
  messageId: Type.String({ description: 'The `webhook-id` header: the same on every attempt (and for every endpoint of the event)', example: 'msg_9f1c2a8e8d4b4c1e9a532f0a4f1e7c11' }),
  event: Type.String({ description: 'The event type (`webhook.test` for POST /webhooks/{id}/test)', example: 'snapshot.completed' }),
  status: DeliveryStatus,
  test: Type.Boolean({ description: 'Sent by POST /webhooks/{id}/test: one attempt, no retry' }),
  attempts: Type.Integer({ example: 1 }),
  statusCode: Nullable(Type.Integer({ description: "The last attempt's HTTP status; null when no answer came", example: 200 })),
  durationMs: Nullable(Type.Integer({ description: 'How long the last attempt took', example: 42 })),
  error: Nullable(Type.String({ description: 'Why the last attempt failed', example: 'answered 500' })),
  responseExcerpt: Nullable(Type.String({ description: "The start of the last answer's body (at most 500 characters)" })),
  lastAttemptAt: Nullable(Timestamp),
  nextAttemptAt: Nullable(Timestamp),
  createdAt: Timestamp,
}));
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookParams = Type.Object({ webhookId: Uuid });
export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;
