import type { DomainContext } from '../context.ts';
import { conflict } from '../errors.ts';
import { changeOne } from '../mutation.ts';
import { findSubscription } from './find-subscription.ts';
import { toSubscriptionOutput } from './subscription-output.ts';
import { newSealedWebhookSecret } from './webhook-secret.ts';

const HOUR_MS = 3_600_000;

/**
 * A new signing secret, shown in this answer only. For `graceHours` the secret it replaces
 * still signs too (second), so receivers can switch without missing a message; 0 ends the old
 * one at once. A rotation during a running grace period replaces the older secret: only the
 * one just replaced keeps signing (two signatures at most, never three).
 */
export async function rotateSubscriptionSecret(
  { em, services, auth }: DomainContext,
  input: { subscriptionId: string; graceHours: number },
): Promise<{ secret: string }> {
  let secret = '';
  // Locked: of two concurrent rotations the second replaces the first's secret, never loses it silently.
  await changeOne(em, auth, {
    find: (em) => findSubscription(em, auth, input.subscriptionId, { lock: true }),
    change: (subscription) => {
      if (subscription.channel !== 'webhook' || !subscription.sealedSecret) {
        throw conflict(
          `Subscription ${subscription.id} is not a webhook subscription: it has no secret to rotate`,
        );
      }
      const fresh = newSealedWebhookSecret(services.secretBox, subscription.id);
      const graceMs = input.graceHours * HOUR_MS;
      subscription.sealedPreviousSecret = graceMs > 0 ? subscription.sealedSecret : null;
      subscription.previousSecretExpiresAt = graceMs > 0 ? new Date(Date.now() + graceMs) : null;
      subscription.sealedSecret = fresh.sealedSecret;
      secret = fresh.secret;
      return true;
    },
    answer: toSubscriptionOutput,
    event: (subscription, output) => ({
      type: 'notification_subscription.secret_rotated',
      aggregateId: subscription.id,
      deckId: output.deckId,
      payload: output,
    }),
  });
  return { secret };
}
