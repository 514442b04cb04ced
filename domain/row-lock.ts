import { type EntityClass, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Inside a transaction: locks the row (`FOR UPDATE`) and reloads it. A concurrent change or
 * delete of the same row then waits for this transaction, or this one sees its outcome:
 * null when the row was deleted meanwhile (the caller answers 404, and writes no event).
 */
export async function lockRow<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  id: string,
): Promise<T | null> {
  return em.findOne(entity, id as never, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}
