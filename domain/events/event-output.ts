import { z } from 'zod';

/** An entry of the event log as `GET /notifications/events` answers it. */
export const eventOutput = z
  .object({
    id: z.uuid(),
    eventType: z.string(),
    aggregateType: z.string(),
    aggregateId: z.string(),
    occurredAt: z.iso.datetime(),
    // Any JSON object, kept whole. A loose object checks that and copies it in one pass; a record
    // would run a key and a value schema per field (bench:http: a third of an event page's garbage).
    payload: z.looseObject({}),
  })
  .meta({ id: 'Event' });

export type EventOutput = z.infer<typeof eventOutput>;
