import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import type { EventType } from '../../domain/events/event-types.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import type { KbDocumentOutput } from './kb.schema.ts';

export function recordKbEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'kb_document'>,
  document: KbDocumentOutput,
) {
  recordEvent(em, { organizationId: auth.organizationId }, eventType, {
    aggregateId: document.id,
    payload: document,
  });
}
