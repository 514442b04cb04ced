import type { Channel } from '../../entities/NotificationSubscription.ts';
import type { SealedWebhookSecrets } from '../notifications/webhook-secret.ts';

/**
 * Sends one message through a subscription's channel (webhook, e-mail or console) and says how
 * it went; never throws. One connection pool for the whole instance: the delivery worker and a
 * subscription's test message share it.
 */
export interface Notifier {
  send(job: DeliveryJob, signal?: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** An event as the delivery channels need it. */
export interface EventToDeliver {
  id: string;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  deckId: string | null;
  occurredAt: Date;
  payload: Record<string, unknown>;
}

/** A claimed delivery with what it takes to send it. */
export interface DeliveryJob {
  deliveryId: string;
  /** This claim's own token: only it renews the lease and writes the outcome. */
  claimToken: string;
  attempts: number;
  /** Attempts made before the last manual retry: the retry schedule counts from there. */
  retryFromAttempt: number;
  subscription: {
    id: string;
    organizationId: string;
    name: string;
    channel: Channel;
    channelConfig: Record<string, unknown>;
    /** Webhooks: opened only to sign (`signingSecrets`). */
    sealedSecrets: SealedWebhookSecrets;
    isActive: boolean;
  };
  event: EventToDeliver;
}

export interface AttemptOutcome {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first 2 KB of the receiver's answer (webhooks). */
  responseBody?: string | null;
  retryAfterSeconds?: number;
  /** The receiver said 410 Gone: switch the subscription off. */
  gone?: boolean;
}
