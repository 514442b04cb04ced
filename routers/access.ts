import { type Access, missingAccess, missingUser } from '../domain/auth/access.ts';
import { missingResource } from '../domain/auth/resource-scope.ts';
import { type DomainError, missing, unauthorized } from '../domain/errors.ts';
import type { Context } from './context.ts';

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
  context: Pick<Context, 'auth' | 'operator'>,
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
  context: Pick<Context, 'auth' | 'em'>,
  named: () => Promise<unknown>,
): Promise<DomainError> {
  if (denied.kind !== 'forbidden' || !context.auth) return denied;
  const input = await named().catch(() => undefined);
  return (await missingResource(context.em, context.auth.organizationId, input)) ?? denied;
}
