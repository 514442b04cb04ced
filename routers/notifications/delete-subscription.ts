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
  .mutation(async ({ ctx, input }) => {
    const subscription = await findSubscription(ctx.em, ctx.auth, input.subscriptionId);
    recordSubscriptionEvent(
      ctx.em,
      ctx.auth,
      'notification_subscription.deleted',
      toSubscriptionOutput(subscription),
    );
    ctx.em.remove(subscription);
    await ctx.em.flush();
    return { success: true as const };
  });
