import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { Deck } from '../../entities/Deck.ts';
import type { Channel } from '../../entities/NotificationSubscription.ts';
import type { Access } from '../auth/access.ts';
import { accessCovers } from '../auth/access.ts';
import type { Auth } from '../context.ts';
import { badRequest, forbidden } from '../errors.ts';
import { LISTED_ONLY_WITH } from '../events/event-log.ts';
import type { Services } from '../services.ts';
import { emailText, urlText } from '../text.ts';
import { webhookUrlProblem } from './webhook-address.ts';

/** What each channel's `channelConfig` holds; unknown members are refused. */
export const channelConfigSchemas = {
  webhook: z.strictObject({ url: urlText(2048) }),
  email: z.strictObject({ recipients: z.array(emailText()).min(1).max(50) }),
  console: z.strictObject({}),
} satisfies Record<Channel, z.ZodType>;

/**
 * Checks a channel's configuration for that channel and returns it normalised: a webhook
 * URL must be public (unless allowed), e-mail needs an SMTP server to be configured.
 */
export function checkChannelConfig(
  services: Services,
  channel: Channel,
  config: Record<string, unknown>,
): Record<string, unknown> {
  if (channel === 'email' && !services.mailer) {
    throw badRequest('E-mail notifications are not available: this service has no SMTP server (SMTP_URL)', [
      { path: ['channel'], message: 'email needs SMTP_URL to be configured' },
    ]);
  }
  const parsed = channelConfigSchemas[channel].safeParse(config);
  if (!parsed.success) {
    throw badRequest(
      `channelConfig does not fit the ${channel} channel`,
      parsed.error.issues.map((issue) => ({
        path: ['channelConfig', ...issue.path.filter((s): s is string | number => typeof s !== 'symbol')],
        message: issue.message,
      })),
    );
  }
  if (channel === 'webhook') {
    const problem = webhookUrlProblem(
      (parsed.data as { url: string }).url,
      services.settings.notifications.allowPrivateNetworks,
    );
    if (problem)
      throw badRequest(`The webhook URL ${problem}`, [{ path: ['channelConfig', 'url'], message: problem }]);
  }
  return parsed.data as Record<string, unknown>;
}

/**
 * A subscription receives only the events its access may read (the event log's rule: API keys'
 * events need owner). An event type whose events it could never receive is refused (403)
 * rather than accepted to deliver nothing: an admin asking for `api_key.*`, or anyone for a
 * subscription whose access is admin.
 */
export function checkEventTypeReadable(eventType: string, access: Access): void {
  if (eventType === '*') return;
  const aggregateType = eventType.slice(0, eventType.indexOf('.'));
  const needed = LISTED_ONLY_WITH.find(([type]) => type === aggregateType)?.[1];
  if (needed && !accessCovers(access, needed)) {
    throw forbidden(
      `Events of ${aggregateType} need ${needed} access; this subscription's is ${access} ` +
        '(that of whoever created it or last set its channel or channelConfig)',
    );
  }
}

/** The caller's deck named in a body, or a 400 (not a 404: the route's own resource exists). */
export async function findDeckReference(em: EntityManager, auth: Auth, deckId: string): Promise<Deck> {
  const deck = await em.findOne(Deck, { id: deckId, organization: auth.organizationId });
  if (!deck)
    throw badRequest(`Deck ${deckId} was not found`, [{ path: ['deckId'], message: 'no such deck' }]);
  return deck;
}
