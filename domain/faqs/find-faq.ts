import type { EntityManager } from '@mikro-orm/postgresql';
import { Faq } from '../../entities/Faq.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';
import { lockRow } from '../row-lock.ts';

/** `lock` (inside a transaction): the row is locked and re-read; deleted meanwhile → NOT_FOUND. */
export async function findFaq(
  em: EntityManager,
  auth: Auth,
  id: string,
  options: { lock?: boolean } = {},
): Promise<Faq> {
  let faq = await em.findOne(
    Faq,
    { id, deck: { organization: auth.organizationId } },
    { populate: ['deck'] },
  );
  if (faq && options.lock) faq = await lockRow(em, Faq, id);
  if (!faq) throw notFound('FAQ', id);
  return faq;
}
