import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../../entities/User.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

/**
 * A user of the caller's organization, or NOT_FOUND: another organization's user gets exactly
 * the same answer as a missing one. `lock` (inside a transaction) holds the row until commit.
 */
export async function findUser(
  em: EntityManager,
  auth: Pick<Auth, 'organizationId'>,
  userId: string,
  options: { lock?: boolean } = {},
): Promise<User> {
  const user = await em.findOne(
    User,
    { id: userId, organization: auth.organizationId },
    options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
  );
  if (!user) throw notFound('User', userId);
  return user;
}
