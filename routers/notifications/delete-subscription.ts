import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findSubscription } from './find-subscription.ts';
import { subscriptionIdInput, toSubscriptionOutput } from './subscription.schema.ts';
import { recordSubscriptionEvent } from './subscription-events.ts';

export const deleteSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Delete a subscription and its delivery history',
    },
  })
  .input(subscriptionIdInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) =>
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    ctx.em.transactional(async (em) => {
      const subscription = await findSubscription(em, ctx.auth, input.subscriptionId, { lock: true });
      recordSubscriptionEvent(
        em,
        ctx.auth,
        'notification_subscription.deleted',
        toSubscriptionOutput(subscription),
      );
      em.remove(subscription);
      await em.flush();
      return { success: true as const };
    }),
  );
