import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import type { EventType } from '../../domain/events/event-types.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import type { ActionConfigOutput } from './action-config.schema.ts';

export function recordActionConfigEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'action_config'>,
  config: ActionConfigOutput,
) {
  recordEvent(em, { organizationId: auth.organizationId }, eventType, {
    aggregateId: config.id,
    deckId: config.deckId,
    payload: config,
  });
}
