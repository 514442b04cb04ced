import type { EntityManager } from '@mikro-orm/postgresql';
import { NotificationSubscription } from '../../entities/NotificationSubscription.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

export async function findSubscription(
  em: EntityManager,
  auth: Auth,
  id: string,
): Promise<NotificationSubscription> {
  const subscription = await em.findOne(NotificationSubscription, { id, organization: auth.organizationId });
  if (!subscription) throw notFound('Subscription', id);
  return subscription;
}
