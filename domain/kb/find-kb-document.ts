import type { EntityManager } from '@mikro-orm/postgresql';
import { KbDocument } from '../../entities/KbDocument.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';
import { lockRow } from '../row-lock.ts';

/** `lock` (inside a transaction): the row is locked and re-read; deleted meanwhile → NOT_FOUND. */
export async function findKbDocument(
  em: EntityManager,
  auth: Auth,
  id: string,
  options: { lock?: boolean } = {},
): Promise<KbDocument> {
  let document = await em.findOne(KbDocument, { id, organization: auth.organizationId });
  if (document && options.lock) document = await lockRow(em, KbDocument, id);
  if (!document) throw notFound('Document', id);
  return document;
}
