import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../context.ts';
import type { EventType } from '../events/event-types.ts';
import { recordEvent } from '../events/record-event.ts';

/** Records an event of the deck aggregate (the deck itself, its branding, intro or slide order). */
export function recordDeckEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'deck'>,
  deckId: string,
  payload: Record<string, unknown>,
) {
  recordEvent(em, {
    organizationId: auth.organizationId,
    aggregateType: 'deck',
    eventType,
    aggregateId: deckId,
    deckId,
    payload,
  });
}
