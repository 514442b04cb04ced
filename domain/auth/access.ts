import type { UserRole } from '../../entities/User.ts';
import { type DomainError, forbidden } from '../errors.ts';

/**
 * Access levels (api.md, "Who may do what"), each covering the ones before it: `read` (every
 * GET), `write` (deck content, files), `admin` (notification subscriptions, the user list),
 * `owner` (API keys, users). A user's role grants one of them.
 */
export const ACCESS_LEVELS = ['read', 'write', 'admin', 'owner'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** What these checks read of a caller (`Auth`, domain/context.ts, is one). */
interface Caller {
  access: Access;
  actor: { type: 'user' | 'api_key'; id: string };
  userId: string | null;
}

/**
 * Who is calling, as one word (`user:<id>` or `api_key:<id>`): the idempotency store and the
 * rate limiter both count by it, so the two can never disagree.
 */
export function callerKeyOf(auth: Caller): string {
  return `${auth.actor.type}:${auth.actor.id}`;
}

const ACCESS_OF_ROLE: Record<UserRole, Access> = { member: 'write', admin: 'admin', owner: 'owner' };

/** A user's access, from their role (read when the session is checked: a role change counts at once). */
export function accessOfRole(role: UserRole): Access {
  return ACCESS_OF_ROLE[role];
}

/** THE way to ask what a caller may do: fixed when it was authenticated (user's role or key's access). */
export function accessOf(auth: Caller): Access {
  return auth.access;
}

/** Whether access `has` covers `needed` (each level covers the ones before it). */
export function accessCovers(has: Access, needed: Access): boolean {
  return ACCESS_LEVELS.indexOf(has) >= ACCESS_LEVELS.indexOf(needed);
}

/** FORBIDDEN (403) unless the caller's access covers `needed`; the detail names what is needed. */
export function missingAccess(auth: Caller, needed: Access): DomainError | null {
  const has = accessOf(auth);
  if (accessCovers(has, needed)) return null;
  return forbidden(`This needs ${needed} access; yours is ${has}`);
}

/**
 * FORBIDDEN (403) unless the caller is a user (signed in with a session), for what only a user
 * can do (change their password): the one place that tells a user from other kinds of caller
 * (API keys get "this needs a user session").
 */
export function missingUser(auth: Caller): DomainError | null {
  if (auth.actor.type === 'user' && auth.userId) return null;
  return forbidden('This needs a user session; an API key cannot do it');
}

/** The signed-in user's id; FORBIDDEN for any other kind of caller (see `missingUser`). */
export function requireUser(auth: Caller): string {
  const denied = missingUser(auth);
  if (denied) throw denied;
  return auth.userId!;
}
