import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType } from '../../domain/events/event-types.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import type { SubscriptionOutput } from './subscription.schema.ts';

/** Subscription events carry the subscription without its secret. */
export function recordSubscriptionEvent(
  em: EntityManager,
  auth: { organizationId: string },
  eventType: EventType<'notification_subscription'>,
  subscription: SubscriptionOutput,
) {
  recordEvent(em, { organizationId: auth.organizationId }, eventType, {
    aggregateId: subscription.id,
    deckId: subscription.deckId,
    payload: subscription,
  });
}
