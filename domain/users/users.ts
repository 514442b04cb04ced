import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../entities/ids.ts';
import { Organization } from '../../entities/Organization.ts';
import { User, type UserRole } from '../../entities/User.ts';
import { hashPassword } from '../../server/passwords.ts';
import { conflict } from '../errors.ts';

export interface CreateUserInput {
  organization: string;
  email: string;
  password: string;
  name?: string | undefined;
  role?: UserRole | undefined;
}

/**
 * Creates a user (operators only: admin CLI, demo seed). Finds the organization by name or
 * creates it; the first user of a new organization is its owner.
 */
export async function createUser(
  ctx: { em: EntityManager },
  input: CreateUserInput,
): Promise<{ organizationId: string; userId: string }> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await ctx.em.transactional(async (em) => {
      let organization = await em.findOne(Organization, { name: input.organization });
      const isNewOrganization = !organization;
      organization ??= em.create(Organization, { id: newId(), name: input.organization });
      const user = em.create(User, {
        id: newId(),
        organization,
        email: input.email,
        name: input.name ?? input.email.split('@')[0]!,
        role: input.role ?? (isNewOrganization ? 'owner' : 'member'),
        passwordHash,
      });
      await em.flush();
      return { organizationId: organization.id, userId: user.id };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict(`A user with e-mail ${input.email} already exists`);
    }
    throw error;
  }
}
