import { z } from 'zod';
import { NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import { authedProcedure } from '../trpc.ts';
import { subscriptionOutput, toSubscriptionOutput } from './subscription.schema.ts';

export const listSubscriptions = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/notifications/subscriptions',
      tags: ['notifications'],
      summary: 'The organization’s subscriptions, oldest first',
    },
  })
  .input(z.object({}))
  .output(z.object({ subscriptions: z.array(subscriptionOutput) }))
  .query(async ({ ctx }) => {
    const subscriptions = await ctx.em.find(
      NotificationSubscription,
      { organization: ctx.auth.organizationId },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    return { subscriptions: subscriptions.map(toSubscriptionOutput) };
  });
