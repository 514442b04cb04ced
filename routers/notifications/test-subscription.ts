import { z } from 'zod';
import * as subscriptionTests from '../../domain/notifications/test-subscription.ts';
import { authedProcedure } from '../trpc.ts';

const testAttemptOutput = z
  .object({
    attempt: z.object({
      status: z.enum(['succeeded', 'failed']),
      responseStatus: z.int().nullable(),
      durationMs: z.int(),
      error: z.string().nullable(),
    }),
  })
  .meta({ id: 'SubscriptionTest' });

export const testSubscription = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'POST',
      path: '/notifications/subscriptions/{subscriptionId}/test',
      tags: ['notifications'],
      summary: 'Send one signed notification.test message to this subscription now',
      description:
        'Through the subscription’s channel, to it alone; not retried, not in the event log. ' +
        'A failed attempt is a 200 whose status is failed.',
    },
  })
  .input(z.strictObject({ subscriptionId: z.uuid() }))
  .output(testAttemptOutput)
  .mutation(({ ctx, input }) => subscriptionTests.testSubscription(ctx, input.subscriptionId));
