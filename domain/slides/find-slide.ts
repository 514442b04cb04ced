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
