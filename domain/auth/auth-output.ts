import { z } from 'zod';
import { API_KEY_ACCESS, type ApiKeyAccess } from '../../entities/ApiKey.ts';
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

/** The answer of login. */
export const currentUserOutput = z
  .object({ user: userOutput, organization: organizationOutput })
  .meta({ id: 'CurrentUser' });

/** An API key as the caller of `GET /api/auth/me`. */
export const callerApiKeyOutput = z
  .object({ id: z.uuid(), name: z.string(), access: z.enum(API_KEY_ACCESS) })
  .meta({ id: 'CallerApiKey' });

/**
 * The answer of GET /api/auth/me: a user (`apiKey` absent), or an API key (`user: null`),
 * as api.md's "Who may do what" shows.
 */
export const currentCallerOutput = z
  .object({
    user: userOutput.nullable(),
    apiKey: callerApiKeyOutput.optional(),
    organization: organizationOutput,
  })
  .meta({ id: 'CurrentCaller' });

export interface CurrentUser {
  user: { id: string; email: string; name: string; role: UserRole };
  organization: { id: string; name: string };
}

export type CurrentCaller =
  | CurrentUser
  | {
      user: null;
      apiKey: { id: string; name: string; access: ApiKeyAccess };
      organization: { id: string; name: string };
    };

/** Built from a user caller alone: the statement that authenticated it read everything shown. */
export function toCurrentUser(auth: Auth): CurrentUser {
  if (auth.userId === null) throw new Error('toCurrentUser needs a user caller');
  return {
    user: { id: auth.userId, email: auth.email!, name: auth.name!, role: auth.role! },
    organization: { id: auth.organizationId, name: auth.organizationName },
  };
}

/** Either caller, from what its authentication read. */
export function toCurrentCaller(auth: Auth): CurrentCaller {
  if (!auth.apiKey) return toCurrentUser(auth);
  return {
    user: null,
    apiKey: { id: auth.apiKey.id, name: auth.apiKey.name, access: auth.access as ApiKeyAccess },
    organization: { id: auth.organizationId, name: auth.organizationName },
  };
}
