import type { Agent } from 'undici';
import { signingSecrets } from '../../domain/notifications/webhook-secret.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { Mailer } from '../../domain/ports/mailer.ts';
import type { AttemptOutcome, DeliveryJob } from '../../domain/ports/notifier.ts';
import type { SecretBox } from '../../domain/ports/secret-box.ts';
import { emailMessage, webhookBody } from './event-message.ts';
import { sendWebhook } from './webhook-sender.ts';

/** What sending takes: the channels' means and the webhook settings. */
export interface NotifierParts {
  secretBox: SecretBox;
  mailer: Mailer | null;
  logger: Logger;
  webhookTimeoutMs: number;
  allowPrivateNetworks: boolean;
}

/** Sends one delivery through its subscription's channel. Never throws. */
export async function attemptDelivery(
  job: DeliveryJob,
  services: NotifierParts,
  /** The instance's webhook connection pool, made when first asked for. */
  agent: () => Promise<Agent>,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const { subscription, event } = job;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!subscription.isActive) {
    return { delivered: false, statusCode: null, error: 'the subscription is switched off', durationMs: 0 };
  }
  try {
    switch (subscription.channel) {
      case 'webhook': {
        const result = await sendWebhook({
          agent: await agent(),
          url: String(subscription.channelConfig.url),
          secrets: signingSecrets(services.secretBox, subscription.id, subscription.sealedSecrets),
          eventId: event.id,
          body: webhookBody(event),
          timeoutMs: services.webhookTimeoutMs,
          allowPrivateNetworks: services.allowPrivateNetworks,
          signal,
        });
        return { ...result, delivered: result.error === null, gone: result.statusCode === 410 };
      }
      case 'email': {
        if (!services.mailer) throw new Error('no SMTP server is configured (SMTP_URL)');
        const recipients = subscription.channelConfig.recipients as string[];
        await services.mailer.send({ to: recipients, ...emailMessage(event, subscription.name) });
        return { delivered: true, statusCode: null, error: null, durationMs: elapsed() };
      }
      case 'console': {
        services.logger.info(
          {
            notification: {
              subscriptionId: subscription.id,
              eventId: event.id,
              eventType: event.eventType,
              aggregateType: event.aggregateType,
              aggregateId: event.aggregateId,
              deckId: event.deckId,
              occurredAt: event.occurredAt.toISOString(),
              payload: event.payload,
            },
          },
          'event notification',
        );
        return { delivered: true, statusCode: null, error: null, durationMs: elapsed() };
      }
    }
  } catch (error) {
    return { delivered: false, statusCode: null, error: (error as Error).message, durationMs: elapsed() };
  }
}
