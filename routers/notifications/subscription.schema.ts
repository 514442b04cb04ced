import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/events/event-types.ts';
import {
  CHANNELS,
  type Channel,
  type NotificationSubscription,
} from '../../entities/NotificationSubscription.ts';
import { text } from '../shared.schema.ts';

export const subscriptionIdInput = z.object({ subscriptionId: z.uuid() });

const aggregates = Object.keys(EVENT_TYPES);
const eventTypes = new Set<string>(Object.values(EVENT_TYPES).flat());

/** An exact event type of the catalogue, `<aggregate>.*`, or `*`. */
export const eventTypePattern = z
  .string()
  .trim()
  .refine(
    (pattern) =>
      pattern === '*' ||
      eventTypes.has(pattern) ||
      (pattern.endsWith('.*') && aggregates.includes(pattern.slice(0, -2))),
    'must be an event type (slide.created), an aggregate wildcard (slide.*) or *',
  )
  .meta({ example: 'slide.*' });

export const channelConfigSchemas = {
  webhook: z.strictObject({ url: z.url().max(2048) }),
  email: z.strictObject({ recipients: z.array(z.email().max(320)).min(1).max(50) }),
  console: z.strictObject({}),
} satisfies Record<Channel, z.ZodType>;

export const channelConfigInput = z
  .record(z.string(), z.unknown())
  .meta({ description: 'webhook: {url}; email: {recipients: [email]}; console: {}' });

export const subscriptionFields = {
  name: text().trim().min(1).max(200),
  eventType: eventTypePattern,
  channel: z.enum(CHANNELS),
  channelConfig: channelConfigInput,
  deckId: z.uuid().nullable(),
  isActive: z.boolean(),
};

export const subscriptionOutput = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    name: z.string(),
    eventType: z.string(),
    channel: z.enum(CHANNELS),
    channelConfig: z.record(z.string(), z.unknown()),
    deckId: z.uuid().nullable(),
    isActive: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'NotificationSubscription' });

/** With `secret`: the answer of a create (or a switch to webhook), the only time it is shown. */
export const subscriptionWithSecretOutput = subscriptionOutput.extend({
  secret: z
    .string()
    .optional()
    .meta({ description: 'Webhook signing secret (whsec_…), shown only when it is created' }),
});

export type SubscriptionOutput = z.infer<typeof subscriptionOutput>;

export function toSubscriptionOutput(subscription: NotificationSubscription): SubscriptionOutput {
  return {
    id: subscription.id,
    organizationId: subscription.organization.id,
    name: subscription.name,
    eventType: subscription.eventType,
    channel: subscription.channel,
    channelConfig: subscription.channelConfig,
    deckId: subscription.deck?.id ?? null,
    isActive: subscription.isActive,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}
