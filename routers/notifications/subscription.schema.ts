import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/events/events.ts';
import { CHANNELS } from '../../entities/NotificationSubscription.ts';
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
