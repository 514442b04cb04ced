import { z } from 'zod';
import { USER_ROLES } from '../../entities/User.ts';

export const userOutput = z
  .object({
    id: z.uuid(),
    email: z.email(),
    name: z.string(),
    role: z.enum(USER_ROLES),
  })
  .meta({ id: 'User' });

export const organizationOutput = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'Organization' });

/** The answer of login and of GET /api/auth/me. */
export const currentUserOutput = z
  .object({ user: userOutput, organization: organizationOutput })
  .meta({ id: 'CurrentUser' });

export const emailAddress = z
  .email()
  .max(320)
  .transform((email) => email.toLowerCase());
