import { z } from 'zod';

/** An entry of the event log as `GET /notifications/events` answers it. */
export const eventOutput = z
  .object({
    id: z.uuid(),
    eventType: z.string(),
    aggregateType: z.string(),
    aggregateId: z.string(),
    occurredAt: z.iso.datetime(),
    payload: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Event' });

export type EventOutput = z.infer<typeof eventOutput>;
