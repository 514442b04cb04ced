import type { DomainContext } from '../context.ts';
import type { Page } from '../events/event-log.ts';
import { type DeliveryOutput, type DeliveryRow, toDeliveryOutput } from './delivery-output.ts';
import { findSubscription } from './find-subscription.ts';

/** The subscription's deliveries, newest first, each with every attempt. */
export async function listDeliveries(
  { em, auth }: DomainContext,
  input: { subscriptionId: string; limit: number; offset: number },
): Promise<{ deliveries: DeliveryOutput[]; pagination: Page }> {
  const subscription = await findSubscription(em, auth, input.subscriptionId);
  const [rows, [count]] = await Promise.all([
    em.execute<DeliveryRow[]>(
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
    em.execute<{ total: number }[]>(
      'select count(*)::int as total from notification_delivery where subscription_id = ?',
      [subscription.id],
    ),
  ]);
  return {
    deliveries: rows.map(toDeliveryOutput),
    pagination: { total: count!.total, limit: input.limit, offset: input.offset },
  };
}
