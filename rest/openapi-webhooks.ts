import type { OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { createSchema } from 'zod-openapi';
import { ALL_EVENT_TYPES, eventId, eventTime, eventTypeName } from '../domain/events/event-output.ts';
import { EVENT_PAYLOADS } from '../domain/events/event-payloads.ts';
import { aggregateOf, type EventType } from '../domain/events/events.ts';

/**
 * The OpenAPI 3.1 `webhooks` section: the message a webhook receiver gets, one entry per event
 * type (plus the test message), built from the payload schemas the event log answers with
 * (domain/events/event-payloads.ts). The body is the one of api.md's "Webhooks", as
 * adapters/notifications/event-message.ts writes it; the headers are Standard Webhooks', as
 * adapters/notifications/webhook-sender.ts sends them. test/openapi-webhooks.test.ts holds the
 * real messages to these schemas.
 */

/** The message of one type: `{type, timestamp, data: {id, aggregateType, aggregateId, deckId, payload}}`. */
export function webhookMessage(type: string, aggregateType: string, payload: z.ZodType) {
  return z.object({
    type: z.literal(type),
    // `occurredAt` in the log.
    timestamp: eventTime,
    data: z.object({
      id: eventId,
      aggregateType: z.literal(aggregateType),
      aggregateId: z.string(),
      deckId: z.uuid().nullable().meta({ description: 'The deck the change belongs to, if any' }),
      payload,
    }),
  });
}

/** Sent by `POST …/subscriptions/{subscriptionId}/test` to that subscription alone; never in the event log. */
export const TEST_MESSAGE_TYPE = 'notification.test';

/** Every message a receiver may get, by its `type`. */
export const WEBHOOK_MESSAGES: Record<string, z.ZodType> = {
  ...Object.fromEntries(
    ALL_EVENT_TYPES.map((type: EventType) => [
      type,
      webhookMessage(type, aggregateOf(type), EVENT_PAYLOADS[type]),
    ]),
  ),
  [TEST_MESSAGE_TYPE]: webhookMessage(
    TEST_MESSAGE_TYPE,
    'notification_subscription',
    z.object({ message: z.string() }),
  ),
};

/** Standard Webhooks' headers, as webhook-sender.ts sends them: `components.parameters`, by name. */
const HEADERS = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event’s id: the same on every retry and replay of the event. Deduplicate by it.',
    schema: { type: 'string', format: 'uuid' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt (signed with the body): refuse messages far from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the bytes of the ' +
      'subscription’s secret (`whsec_` + base64), made anew for each attempt. During a secret rotation’s ' +
      'grace period two, space-separated, the new one first. The Standard Webhooks libraries verify it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

/** What a receiver's answer does: `components.responses`, by name. */
const RESPONSES = {
  WebhookDelivered: {
    description: 'Delivered: any 2xx answer, within the webhook timeout (10 s by default).',
  },
  WebhookGone: { description: 'Gone: the subscription is switched off and nothing more is sent to it.' },
  WebhookRetried: {
    description:
      'Any other answer (a redirect included, which is not followed) or none in time: retried with backoff ' +
      '(`Retry-After` honoured), then the delivery is marked failed.',
  },
};

/**
 * Adds the `webhooks` section (and its tag) to the document, each message a component
 * `<Type>Webhook`. A message refers to its payload's component, which the event log's `Event`
 * already put in the document (rendered as an answer, as a message is): refused at start if not.
 */
export function addWebhooks(document: OpenAPIObject): void {
  // The procedures' answers gave the document its components (the log's `Event` among them).
  const schemas = document.components!.schemas!;
  document.components!.parameters = { ...document.components!.parameters, ...HEADERS } as never;
  document.components!.responses = { ...document.components!.responses, ...RESPONSES };
  const entries = Object.entries(WEBHOOK_MESSAGES).map(([type, message]) => {
    const name = eventTypeName(type);
    const { schema } = createSchema(message, { io: 'output' });
    for (const [, component] of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (!schemas[component!])
        throw new Error(`The webhook message ${type} refers to ${component}, which the document lacks`);
    }
    schemas[`${name}Webhook`] = schema as (typeof schemas)[string];
    const operation = {
      operationId: `webhook${name}`,
      summary: type === TEST_MESSAGE_TYPE ? 'A subscription’s test message' : `The event ${type}`,
      description:
        type === TEST_MESSAGE_TYPE
          ? 'Sent once, now, by `POST /notifications/subscriptions/{subscriptionId}/test` to that subscription alone: not in the event log, not retried.'
          : `Sent to every active subscription whose \`eventType\` matches \`${type}\` (and whose access may read it), at least once. The \`payload\` is the event’s, as the event log shows it.`,
      tags: ['webhooks'],
      // The receiver checks the message by its signature (a header below), not by a scheme of the document's.
      security: [],
      parameters: Object.keys(HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Webhook` } } },
      },
      responses: {
        '2XX': { $ref: '#/components/responses/WebhookDelivered' },
        '410': { $ref: '#/components/responses/WebhookGone' },
        default: { $ref: '#/components/responses/WebhookRetried' },
      },
    };
    return [type, { post: operation }];
  });
  const withWebhooks = document as OpenAPIObject & { webhooks?: Record<string, unknown> };
  withWebhooks.webhooks = Object.fromEntries(entries);
  document.tags = [
    ...(document.tags ?? []).filter((tag) => tag.name !== 'webhooks'),
    {
      name: 'webhooks',
      description:
        'The messages a webhook subscription receives (Standard Webhooks): one per event type. See docs/webhooks.md.',
    },
  ];
}
