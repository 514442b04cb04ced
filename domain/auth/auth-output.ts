import { z } from 'zod';
import { USER_ROLES, type UserRole } from '../../entities/User.ts';
import type { Auth } from '../context.ts';

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

export interface CurrentUser {
  user: { id: string; email: string; name: string; role: UserRole };
  organization: { id: string; name: string };
}

/** Built from the caller alone: the statement that authenticated it read everything shown. */
export function toCurrentUser(auth: Auth): CurrentUser {
  return {
    user: { id: auth.userId, email: auth.email, name: auth.name, role: auth.role },
    organization: { id: auth.organizationId, name: auth.organizationName },
  };
}
