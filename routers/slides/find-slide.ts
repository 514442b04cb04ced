import type { EntityManager } from '@mikro-orm/postgresql';
import { Slide } from '../../entities/Slide.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

/** The caller's slide (by its uuid), or NOT_FOUND; another organization's slide is "not found". */
export async function findSlide(em: EntityManager, auth: Auth, id: string): Promise<Slide> {
  const slide = await em.findOne(Slide, { id, deck: { organization: auth.organizationId } });
  if (!slide) throw notFound('Slide', id);
  return slide;
}
