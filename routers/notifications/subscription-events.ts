import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType } from '../events/event-types.ts';
import { recordEvent } from '../events/record-event.ts';
import type { SubscriptionOutput } from './subscription.schema.ts';

/** Subscription events carry the subscription without its secret. */
export function recordSubscriptionEvent(
  em: EntityManager,
  auth: { organizationId: string },
  eventType: EventType<'notification_subscription'>,
  subscription: SubscriptionOutput,
) {
  recordEvent(em, {
    organizationId: auth.organizationId,
    aggregateType: 'notification_subscription',
    eventType,
    aggregateId: subscription.id,
    deckId: subscription.deckId,
    payload: subscription,
  });
}
