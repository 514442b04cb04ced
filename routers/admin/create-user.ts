import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import { conflict } from '../../domain/errors.ts';
import { newId } from '../../entities/ids.ts';
import { Organization } from '../../entities/Organization.ts';
import { USER_ROLES, User } from '../../entities/User.ts';
import { hashPassword } from '../../server/passwords.ts';
import { emailAddress } from '../auth/auth.schema.ts';
import { text } from '../shared.schema.ts';
import { operatorProcedure } from '../trpc.ts';

export const createUserInput = z.strictObject({
  organization: text().trim().min(1).max(200),
  email: emailAddress,
  password: text().min(8, 'must be at least 8 characters').max(1024),
  name: text().trim().min(1).max(200).optional(),
  role: z.enum(USER_ROLES).optional(),
});

export const createUserOutput = z.object({ organizationId: z.uuid(), userId: z.uuid() });

/**
 * Operators only (admin CLI, demo seed). Finds the organization by name or creates it;
 * the first user of a new organization is its owner.
 */
export const createUser = operatorProcedure
  .input(createUserInput)
  .output(createUserOutput)
  .mutation(async ({ ctx, input }) => {
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
  });
