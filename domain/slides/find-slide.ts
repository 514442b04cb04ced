import type { EntityManager } from '@mikro-orm/postgresql';
import { Slide } from '../../entities/Slide.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';
import { lockRow } from '../row-lock.ts';

/** The caller's slide (by its uuid), or NOT_FOUND; another organization's slide is "not found". */
export async function findSlide(
  em: EntityManager,
  auth: Auth,
  id: string,
  options: { lock?: boolean } = {},
): Promise<Slide> {
  let slide = await em.findOne(Slide, { id, deck: { organization: auth.organizationId } });
  // `lock` (inside a transaction): the row is locked and re-read; deleted meanwhile → NOT_FOUND.
  if (slide && options.lock) slide = await lockRow(em, Slide, id);
  if (!slide) throw notFound('Slide', id);
  return slide;
}

/**
 * Locks the deck of the caller's slide, as a change to the deck's slide order does (inside a
 * transaction), in one statement; NOT_FOUND when the caller has no such slide. The slide itself
 * is read after the lock: a change that held it may have moved or removed the slide.
 */
export async function lockDeckOfSlide(em: EntityManager, auth: Auth, slideId: string): Promise<void> {
  const rows = await em.execute(
    `select d.id from slide s join deck d on d.id = s.deck_id
      where s.id = ? and d.organization_id = ? for update of d`,
    [slideId, auth.organizationId],
  );
  if (rows.length === 0) throw notFound('Slide', slideId);
}
