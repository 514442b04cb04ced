import type { EntityManager } from '@mikro-orm/postgresql';
import { KbDocument } from '../../entities/KbDocument.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

export async function findKbDocument(em: EntityManager, auth: Auth, id: string): Promise<KbDocument> {
  const document = await em.findOne(KbDocument, { id, organization: auth.organizationId });
  if (!document) throw notFound('Document', id);
  return document;
}
