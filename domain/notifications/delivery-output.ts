import { z } from 'zod';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../entities/NotificationDelivery.ts';

/**
 * How many attempts a delivery keeps, the newest: manual retries have no bound (90 of them made
 * one delivery's listing 197 KB). `attempts` still counts them all.
 */
export const ATTEMPT_LOG_KEPT = 50;

/** A delivery with its newest attempts, as `GET …/deliveries` lists it. */
export const deliveryOutput = z
  .object({
    id: z.uuid(),
    eventId: z.uuid(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().meta({
      description: `How many attempts were made in all; the attempt log keeps the newest ${ATTEMPT_LOG_KEPT}`,
    }),
    nextAttemptAt: z.iso.datetime().nullable().meta({
      description:
        'When the next try is due (pending only; null while it waits for an earlier delivery of the same aggregate)',
    }),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    attemptLog: z
      .array(
        z.object({
          attempt: z.int().meta({ description: 'The attempt’s number, from 1' }),
          at: z.iso.datetime(),
          responseStatus: z.int().nullable(),
          durationMs: z.int(),
          responseBody: z
            .string()
            .nullable()
            .meta({ description: 'The first 2 KB of the receiver’s answer, as text (webhooks)' }),
          error: z.string().nullable(),
        }),
      )
      .meta({
        description: `The newest ${ATTEMPT_LOG_KEPT} attempts, newest first (\`attempts\` counts them all)`,
      }),
  })
  .meta({ id: 'NotificationDelivery' });

export type DeliveryOutput = z.infer<typeof deliveryOutput>;

/** A row of the listing query in `deliveries.ts`, its attempts aggregated as JSON. */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  attempt_log: {
    attempt: number;
    at: string;
    responseStatus: number | null;
    durationMs: number;
    responseBody: string | null;
    error: string | null;
  }[];
}

const iso = (value: Date | string) => new Date(value).toISOString();

export function toDeliveryOutput(row: DeliveryRow): DeliveryOutput {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    // Null also while it waits for an earlier delivery of its aggregate (infinity in the table).
    nextAttemptAt:
      row.status === 'pending' && Number.isFinite(new Date(row.next_attempt_at).getTime())
        ? iso(row.next_attempt_at)
        : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    completedAt: row.completed_at ? iso(row.completed_at) : null,
    attemptLog: row.attempt_log.map((a) => ({ ...a, at: iso(a.at) })),
  };
}
