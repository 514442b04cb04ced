import { authedProcedure } from '../trpc.ts';
import { findSubscription } from './find-subscription.ts';
import { subscriptionIdInput, subscriptionOutput, toSubscriptionOutput } from './subscription.schema.ts';

export const getSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions/{subscriptionId}',
      tags: ['notifications'],
      summary: 'Get a subscription',
    },
  })
  .input(subscriptionIdInput)
  .output(subscriptionOutput)
  .query(async ({ ctx, input }) =>
    toSubscriptionOutput(await findSubscription(ctx.em, ctx.auth, input.subscriptionId)),
  );
