import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deck } from '../../entities/Deck.ts';
import { Slide } from '../../entities/Slide.ts';
import { badRequest } from '../errors.ts';

/** The related slide must be a slide of the FAQ's own deck: otherwise a 400 on `relatedSlideId`. */
export async function findRelatedSlide(em: EntityManager, deck: Deck, slideId: string): Promise<Slide> {
  const slide = await em.findOne(Slide, { id: slideId, deck });
  if (!slide) {
    throw badRequest(`Slide ${slideId} is not a slide of this deck`, [
      { path: ['relatedSlideId'], message: 'must be a slide of the same deck' },
    ]);
  }
  return slide;
}
