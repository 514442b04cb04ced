import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../context.ts';
import type { EventType } from '../events/event-types.ts';
import { recordEvent } from '../events/record-event.ts';
import type { ActionConfigOutput } from './action-config.schema.ts';

export function recordActionConfigEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'action_config'>,
  config: ActionConfigOutput,
) {
  recordEvent(em, {
    organizationId: auth.organizationId,
    aggregateType: 'action_config',
    eventType,
    aggregateId: config.id,
    deckId: config.deckId,
    payload: config,
  });
}
