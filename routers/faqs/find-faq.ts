import type { EntityManager } from '@mikro-orm/postgresql';
import { Faq } from '../../entities/Faq.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

export async function findFaq(em: EntityManager, auth: Auth, id: string): Promise<Faq> {
  const faq = await em.findOne(
    Faq,
    { id, deck: { organization: auth.organizationId } },
    { populate: ['deck'] },
  );
  if (!faq) throw notFound('FAQ', id);
  return faq;
}
