import { z } from 'zod';
import { USER_ROLES, type User } from '../../entities/User.ts';

/** A user of the organization as the users routes answer it (and as its events carry it): never a password or hash. */
export const organizationUserOutput = z
  .object({
    id: z.uuid(),
    email: z.email(),
    name: z.string(),
    role: z.enum(USER_ROLES),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'OrganizationUser' });

export type OrganizationUserOutput = z.infer<typeof organizationUserOutput>;

export function toOrganizationUserOutput(user: User): OrganizationUserOutput {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
  };
}
