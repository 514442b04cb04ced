import { z } from 'zod';
import * as replays from '../../domain/notifications/replay-subscription.ts';
import { timestamp } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const replaySubscription = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'POST',
      path: '/notifications/subscriptions/{subscriptionId}/replay',
      tags: ['notifications'],
      summary: 'Deliver again the events of a time window that match this subscription',
      description:
        'New deliveries, due now, each with the event’s id as webhook-id; events from before the ' +
        'subscription existed included. `since` at most WEBHOOK_REPLAY_MAX_DAYS back and not in the ' +
        'future; `until` later than `since` and not in the future; at most WEBHOOK_REPLAY_MAX_EVENTS ' +
        'events (a larger window is a 400). A switched-off subscription, or one with ' +
        'WEBHOOK_REPLAY_MAX_EVENTS deliveries still pending, is a 409.',
    },
    successStatus: 202,
  })
  .input(
    z.strictObject({
      subscriptionId: z.uuid(),
      since: timestamp().meta({ description: 'Inclusive start of the window' }),
      until: timestamp().optional().meta({ description: 'Exclusive end of the window (default: now)' }),
    }),
  )
  .output(z.object({ queued: z.int().min(0) }))
  .mutation(({ ctx, input }) => replays.replaySubscription(ctx, input));
