import { z } from 'zod';
import { eventTypePattern } from '../notifications/subscription.schema.ts';
import { text, timestamp } from '../shared.schema.ts';

/**
 * The event log's filters, the same on the log (`notifications.listEvents`) and its live stream
 * (`events.onEvent`): api.md, "The event log's filters, and query strings". One implementation
 * serves both (domain/events/event-filter.ts).
 */
export const eventFilterFields = {
  eventType: eventTypePattern
    .optional()
    .meta({ description: 'An event type (`slide.created`), an aggregate wildcard (`slide.*`) or `*`' }),
  aggregateType: text().trim().min(1).max(100).optional(),
  aggregateId: text().trim().min(1).max(200).optional(),
  deckId: z
    .uuid()
    .optional()
    .meta({ description: 'The events of this deck: its own and those of everything in it' }),
  since: timestamp().optional().meta({ description: 'Inclusive lower bound on occurredAt' }),
  until: timestamp().optional().meta({ description: 'Exclusive upper bound on occurredAt' }),
};
