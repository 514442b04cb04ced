import { z } from 'zod';
import * as rotations from '../../domain/notifications/rotate-subscription-secret.ts';
import { authedProcedure } from '../trpc.ts';

export const rotateSubscriptionSecret = authedProcedure
  .meta({
    access: 'admin',
    openapi: {
      method: 'POST',
      path: '/notifications/subscriptions/{subscriptionId}/rotate-secret',
      tags: ['notifications'],
      summary:
        'Replace a webhook subscription’s signing secret; the old one keeps signing for a grace period',
      description:
        'The new secret is shown in this answer only. During the grace period every message carries two ' +
        'signatures, new first (`webhook-signature: v1,<new> v1,<old>`). A rotation during a running grace ' +
        'period replaces the older secret: only the one just replaced keeps signing. Not a webhook → 409.',
      errorResponses: [409],
    },
  })
  .input(
    z.strictObject({
      subscriptionId: z.uuid(),
      graceHours: z
        .number()
        .min(0)
        .max(168)
        .default(24)
        .meta({ description: 'How long the replaced secret keeps signing (hours, 0–168; default 24)' }),
    }),
  )
  .output(z.object({ secret: z.string().meta({ description: 'The new secret (whsec_…), shown only here' }) }))
  .mutation(({ ctx, input }) => rotations.rotateSubscriptionSecret(ctx, input));
