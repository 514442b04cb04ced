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

export interface EventRow {
  id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  /** ISO 8601 (see `isoTimestamp`). */
  occurred_at: string;
  payload: Record<string, unknown>;
}

export function toEventOutput(row: EventRow): EventOutput {
  return {
    id: row.id,
    eventType: row.event_type,
    aggregateType: row.aggregate_type,
    aggregateId: row.aggregate_id,
    occurredAt: row.occurred_at,
    payload: row.payload,
  };
}
