import { newId } from '../../entities/ids.ts';
import type { DomainContext } from '../context.ts';
import { findSubscription } from './find-subscription.ts';

export interface TestAttempt {
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * One signed `notification.test` message, sent now through the subscription's channel, to it
 * alone: not an event (nothing in the event log, so no other subscription sees it), no delivery
 * row, no retry. A switched-off subscription is tested too: checking an endpoint before
 * switching it back on is what the test is for. Bounded by the webhook timeout.
 */
export async function testSubscription(
  { em, services, auth }: DomainContext,
  subscriptionId: string,
): Promise<{ attempt: TestAttempt }> {
  const subscription = await findSubscription(em, auth, subscriptionId);
  const outcome = await services.notifier.send({
    deliveryId: newId(),
    // Not a row: nothing is claimed, renewed or written.
    claimToken: newId(),
    attempts: 0,
    retryFromAttempt: 0,
    subscription: {
      id: subscription.id,
      organizationId: auth.organizationId,
      name: subscription.name,
      channel: subscription.channel,
      channelConfig: subscription.channelConfig,
      sealedSecrets: subscription,
      isActive: true,
    },
    event: {
      id: newId(),
      eventType: 'notification.test',
      aggregateType: 'notification_subscription',
      aggregateId: subscription.id,
      deckId: subscription.deck?.id ?? null,
      occurredAt: new Date(),
      payload: { message: `A test message for the subscription “${subscription.name}”` },
    },
  });
  return {
    attempt: {
      status: outcome.delivered ? 'succeeded' : 'failed',
      responseStatus: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
    },
  };
}
