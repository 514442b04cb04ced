import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../ports/secret-box.ts';

/**
 * A webhook subscription's signing secrets: made here, stored only sealed (AES-256-GCM,
 * adapters/secret-box.ts) and bound to the subscription's id, opened only to sign.
 */

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** What a sealed secret is bound to: it opens for this subscription only. */
export function webhookSecretContext(subscriptionId: string): string {
  return `notification_subscription.secret:${subscriptionId}`;
}

/** A new secret, for the one answer that shows it, and its sealed form, for the row. */
export function newSealedWebhookSecret(box: SecretBox, subscriptionId: string) {
  const secret = newWebhookSecret();
  return { secret, sealedSecret: box.seal(secret, webhookSecretContext(subscriptionId)) };
}

export interface SealedWebhookSecrets {
  sealedSecret?: string | null;
  sealedPreviousSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
}

/**
 * The secrets a message is signed with now, newest first: the current one, and during a
 * rotation's grace period the one before it (api.md: `v1,<new> v1,<old>`).
 */
export function signingSecrets(
  box: SecretBox,
  subscriptionId: string,
  sealed: SealedWebhookSecrets,
  now = new Date(),
): string[] {
  const context = webhookSecretContext(subscriptionId);
  const secrets = sealed.sealedSecret ? [box.open(sealed.sealedSecret, context)] : [];
  if (sealed.sealedPreviousSecret && sealed.previousSecretExpiresAt && sealed.previousSecretExpiresAt > now) {
    secrets.push(box.open(sealed.sealedPreviousSecret, context));
  }
  return secrets;
}
