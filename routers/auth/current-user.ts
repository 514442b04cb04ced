import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { User } from '../../entities/User.ts';
import type { currentUserOutput } from './auth.schema.ts';

export async function currentUser(
  em: EntityManager,
  userId: string,
): Promise<z.infer<typeof currentUserOutput>> {
  const user = await em.findOneOrFail(User, userId, { populate: ['organization'] });
  return {
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
    organization: { id: user.organization.id, name: user.organization.name },
  };
}
