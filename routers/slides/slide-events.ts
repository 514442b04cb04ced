import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import type { EventType } from '../../domain/events/event-types.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import type { SlideOutput } from './slide.schema.ts';

/** Records a slide event with the slide as the route returned it. */
export function recordSlideEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'slide'>,
  slide: SlideOutput,
) {
  recordEvent(em, { organizationId: auth.organizationId }, eventType, {
    aggregateId: slide.id,
    deckId: slide.deckId,
    payload: slide,
  });
}
