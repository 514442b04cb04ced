import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../../domain/context.ts';
import { notFound } from '../../domain/errors.ts';
import { lockRow } from '../../domain/row-lock.ts';
import { KbDocument } from '../../entities/KbDocument.ts';

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
