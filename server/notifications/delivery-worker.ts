import type { Agent } from 'undici';
import type { AttemptOutcome, DeliveryJob } from '../../domain/notifications/delivery-queue.ts';
import { signingSecrets } from '../../domain/notifications/webhook-secret.ts';
import type { Services } from '../services.ts';
import { emailMessage, webhookBody } from './event-message.ts';
import { sendWebhook } from './webhook-sender.ts';

/** Sends one delivery through its subscription's channel. Never throws. */
export async function attemptDelivery(
  job: DeliveryJob,
  services: Omit<Services, 'notifier'>,
  agent: Agent,
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
          agent,
          url: String(subscription.channelConfig.url),
          secrets: signingSecrets(services.secretBox, subscription.id, subscription.sealedSecrets),
          eventId: event.id,
          body: webhookBody(event),
          timeoutMs: services.config.notifications.webhookTimeoutMs,
          allowPrivateNetworks: services.config.notifications.allowPrivateNetworks,
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
