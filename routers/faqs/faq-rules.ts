import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import { badRequest } from '../../domain/errors.ts';
import type { EventType } from '../../domain/events/event-types.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import type { Deck } from '../../entities/Deck.ts';
import { Slide } from '../../entities/Slide.ts';
import type { FaqOutput } from './faq.schema.ts';

/** The related slide must be a slide of the FAQ's own deck. */
export async function findRelatedSlide(em: EntityManager, deck: Deck, slideId: string): Promise<Slide> {
  const slide = await em.findOne(Slide, { id: slideId, deck });
  if (!slide) {
    throw badRequest(`Slide ${slideId} is not a slide of this deck`, [
      { path: ['relatedSlideId'], message: 'must be a slide of the same deck' },
    ]);
  }
  return slide;
}

export function recordFaqEvent(
  em: EntityManager,
  auth: Auth,
  eventType: EventType<'faq'>,
  faq: FaqOutput,
  extra = {},
) {
  const { audioUrl: _url, ...payload } = faq;
  recordEvent(em, { organizationId: auth.organizationId }, eventType, {
    aggregateId: faq.id,
    deckId: faq.deckId,
    payload: { ...payload, ...extra },
  });
}
