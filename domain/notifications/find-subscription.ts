import type { EntityManager } from '@mikro-orm/postgresql';
import { NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';
import { lockRow } from '../row-lock.ts';

/** `lock` (inside a transaction): the row is locked and re-read; deleted meanwhile → NOT_FOUND. */
export async function findSubscription(
  em: EntityManager,
  auth: Auth,
  id: string,
  options: { lock?: boolean } = {},
): Promise<NotificationSubscription> {
  let subscription = await em.findOne(NotificationSubscription, { id, organization: auth.organizationId });
  if (subscription && options.lock) subscription = await lockRow(em, NotificationSubscription, id);
  if (!subscription) throw notFound('Subscription', id);
  return subscription;
}
