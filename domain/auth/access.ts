import type { UserRole } from '../../entities/User.ts';
import type { Auth } from '../context.ts';
import { type DomainError, forbidden } from '../errors.ts';

import { ACCESS_LEVELS, type Access } from './access-level.ts';

const ACCESS_OF_ROLE: Record<UserRole, Access> = { member: 'write', admin: 'admin', owner: 'owner' };

/** A user's access, from their role (read when the session is checked: a role change counts at once). */
export function accessOfRole(role: UserRole): Access {
  return ACCESS_OF_ROLE[role];
}

/** THE way to ask what a caller may do: fixed when it was authenticated (user's role or key's access). */
export function accessOf(auth: Auth): Access {
  return auth.access;
}

/** Whether access `has` covers `needed` (each level covers the ones before it). */
export function accessCovers(has: Access, needed: Access): boolean {
  return ACCESS_LEVELS.indexOf(has) >= ACCESS_LEVELS.indexOf(needed);
}

/** FORBIDDEN (403) unless the caller's access covers `needed`; the detail names what is needed. */
export function missingAccess(auth: Auth, needed: Access): DomainError | null {
  const has = accessOf(auth);
  if (accessCovers(has, needed)) return null;
  return forbidden(`This needs ${needed} access; yours is ${has}`);
}

/**
 * FORBIDDEN (403) unless the caller is a user (signed in with a session), for what only a user
 * can do (change their password): the one place that tells a user from other kinds of caller
 * (API keys get "this needs a user session").
 */
export function missingUser(auth: Auth): DomainError | null {
  if (auth.actor.type === 'user' && auth.userId) return null;
  return forbidden('This needs a user session; an API key cannot do it');
}

/** The signed-in user's id; FORBIDDEN for any other kind of caller (see `missingUser`). */
export function requireUser(auth: Auth): string {
  const denied = missingUser(auth);
  if (denied) throw denied;
  return auth.userId!;
}
