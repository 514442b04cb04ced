import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '../../entities/User.ts';
import { type DomainError, forbidden, missing, unauthorized } from '../errors.ts';
import { missingResource } from './resource-scope.ts';

/**
 * Access levels (api.md, "Who may do what"), each covering the ones before it: `read` (every
 * GET), `write` (deck content, files), `admin` (notification subscriptions, the user list),
 * `owner` (API keys, users). A user's role grants one of them.
 */
export const ACCESS_LEVELS = ['read', 'write', 'admin', 'owner'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** What these checks read of a caller (`Auth`, domain/context.ts, is one: not imported, to keep the two apart). */
interface Caller {
  organizationId: string;
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

/**
 * Who may call a procedure (api.md, "Who may do what"): `public` anyone (login); an access
 * level (`read` … `owner`) a caller whose access covers it; `user` any signed-in user but
 * not an API key (password change); `operator` in-process operators only (admin CLI, seed).
 */
export type ProcedureAccess = 'public' | 'operator' | 'user' | Access;
export const PROCEDURE_ACCESS: readonly ProcedureAccess[] = [
  'public',
  'operator',
  'user',
  'read',
  'write',
  'admin',
  'owner',
];

export const SIGN_IN_FIRST = 'Sign in first: this route needs a valid session cookie or API key';

/**
 * THE access decision: the caller's right to call a procedure of this access, made once per
 * call, before its input is read: 401 when nobody is signed in, then 403 naming the access
 * needed. `operator` is a 404 over HTTP (the procedure does not exist there). Answers the
 * error to throw; null when allowed.
 */
export function accessDenial(
  access: ProcedureAccess | undefined,
  context: { auth: Caller | null; operator: boolean },
): DomainError | null {
  // A programming error (the route table refuses such a procedure at start): a 500, never a pass.
  if (access === undefined) throw new Error('This procedure declares no meta.access');
  if (access === 'public') return null;
  if (access === 'operator') return context.operator ? null : missing('No such procedure');
  if (!context.auth) return unauthorized(SIGN_IN_FIRST);
  if (access === 'user') return missingUser(context.auth);
  return missingAccess(context.auth, access);
}

/**
 * A 403 becomes the 404 of a resource the request names (by id) that the caller's organization
 * does not have: another organization's resource stays a 404 whatever the access (api.md), and
 * a missing one answers alike. Looked up only for a refused request; other refusals unchanged.
 */
export async function refusalOf(
  denied: DomainError,
  context: { auth: Caller | null; em: EntityManager },
  named: () => Promise<unknown>,
): Promise<DomainError> {
  if (denied.kind !== 'forbidden' || !context.auth) return denied;
  const input = await named().catch(() => undefined);
  return (await missingResource(context.em, context.auth.organizationId, input)) ?? denied;
}
