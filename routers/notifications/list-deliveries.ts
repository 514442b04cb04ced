import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../entities/NotificationDelivery.ts';
import { paginationInput, paginationOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findSubscription } from './find-subscription.ts';

export const deliveryOutput = z
  .object({
    id: z.uuid(),
    eventId: z.uuid(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int(),
    nextAttemptAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the next try is due (pending only)' }),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    attemptLog: z.array(
      z.object({
        attemptNumber: z.int(),
        attemptedAt: z.iso.datetime(),
        statusCode: z.int().nullable(),
        durationMs: z.int(),
        error: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'NotificationDelivery' });

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  attempt_log: {
    attemptNumber: number;
    attemptedAt: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
  }[];
}

const iso = (value: Date | string) => new Date(value).toISOString();

export const listDeliveries = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions/{subscriptionId}/deliveries',
      tags: ['notifications'],
      summary: 'The subscription’s deliveries, newest first, with every attempt',
    },
  })
  .input(z.object({ subscriptionId: z.uuid(), ...paginationInput }))
  .output(z.object({ deliveries: z.array(deliveryOutput), pagination: paginationOutput }))
  .query(async ({ ctx, input }) => {
    const subscription = await findSubscription(ctx.em, ctx.auth, input.subscriptionId);
    const [rows, [count]] = await Promise.all([
      ctx.em.execute<DeliveryRow[]>(
        `select d.id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.last_status_code,
                d.last_error, d.created_at, d.completed_at,
                coalesce((select json_agg(json_build_object(
                    'attemptNumber', a.attempt_number, 'attemptedAt', a.attempted_at, 'statusCode', a.status_code,
                    'durationMs', a.duration_ms, 'error', a.error) order by a.attempt_number)
                  from delivery_attempt a where a.delivery_id = d.id), '[]') as attempt_log
           from notification_delivery d where d.subscription_id = ?
          order by d.created_at desc, d.id desc limit ? offset ?`,
        [subscription.id, input.limit, input.offset],
      ),
      ctx.em.execute<{ total: number }[]>(
        'select count(*)::int as total from notification_delivery where subscription_id = ?',
        [subscription.id],
      ),
    ]);
    return {
      deliveries: rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        eventType: row.event_type,
        status: row.status,
        attempts: row.attempts,
        nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
        lastStatusCode: row.last_status_code,
        lastError: row.last_error,
        createdAt: iso(row.created_at),
        completedAt: row.completed_at ? iso(row.completed_at) : null,
        attemptLog: row.attempt_log.map((a) => ({ ...a, attemptedAt: iso(a.attemptedAt) })),
      })),
      pagination: { total: count!.total, limit: input.limit, offset: input.offset },
    };
  });
