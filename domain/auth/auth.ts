import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../../entities/User.ts';
import type { DomainContext } from '../context.ts';
import { badRequest, tooManyRequests, unauthorized } from '../errors.ts';
import { recordEvent } from '../events/events.ts';
import type { Services } from '../services.ts';
import { findUser } from '../users/find-user.ts';
import { replacePassword } from '../users/users.ts';
import { requireUser } from './access.ts';
import { type CurrentCaller, type CurrentUser, toCurrentCaller, toCurrentUser } from './auth-output.ts';
import { findAuth } from './callers.ts';
import { countLoginAttempt, forgiveLoginAttempt } from './login-throttle.ts';
import { hashNewPassword, passwordMatches, rehashedPassword } from './password-work.ts';
import { DECOY_PASSWORD_HASH } from './passwords.ts';

/** How an operation signs the caller in or out: bound to the `session` cookie by the transport. */
export interface Session {
  signIn(userId: string): Promise<void>;
  signOut(): Promise<void>;
  /** SHA-256 (hex) of the session token the request presents; null when it presents none. */
  readonly tokenHash: string | null;
}

/** What logging in works with: nobody is signed in yet, so no `auth`. */
export interface LogInContext {
  em: EntityManager;
  services: Services;
  /** The client's address, for throttling. */
  clientAddress: string;
  session: Session;
}

/**
 * Checks an e-mail and password and signs the caller in. Throttled per client address and per
 * e-mail and address, and slowed per e-mail (see login-throttle.ts); an unknown e-mail costs the
 * same as a wrong password.
 */
export async function logIn(
  ctx: LogInContext,
  input: { email: string; password: string },
): Promise<CurrentUser> {
  const limits = ctx.services.settings.loginThrottle;
  // Counted before the password is checked, atomically: concurrent attempts cannot all slip
  // under the limit, and an attempt past it costs no password hash.
  const wait = await countLoginAttempt(ctx.em, input.email, ctx.clientAddress, limits);
  if (wait > 0) throw tooManyRequests(`Too many failed sign-ins; try again in ${wait} s`, wait);

  const user = await ctx.em.findOne(User, { email: input.email });
  // Verify against a decoy when the e-mail is unknown: both failures take the same time.
  const valid = await passwordMatches(input.password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
  if (!user || !valid) throw unauthorized('Wrong e-mail or password');

  await forgiveLoginAttempt(ctx.em, input.email, ctx.clientAddress);
  await upgradePasswordHash(ctx.em, user, input.password);
  const auth = (await findAuth(ctx.em, user.id))!;
  const output = toCurrentUser(auth);
  recordEvent(ctx.em, auth, 'user.logged_in', {
    aggregateId: user.id,
    payload: { user: output.user },
  });
  await ctx.em.flush();
  await ctx.session.signIn(user.id);
  return output;
}

/**
 * After a successful sign-in: a hash of an older scheme or cost (domain/auth/passwords.ts) is
 * replaced now that the password is known. Only while it is still the hash that was checked,
 * so a password changed meanwhile is never overwritten.
 */
async function upgradePasswordHash(em: EntityManager, user: User, password: string): Promise<void> {
  const passwordHash = await rehashedPassword(password, user.passwordHash);
  if (!passwordHash) return;
  await em.execute('update app_user set password_hash = ? where id = ? and password_hash = ?', [
    passwordHash,
    user.id,
    user.passwordHash,
  ]);
}

/**
 * POST /auth/password: the signed-in user's new password, given the current one. A wrong one
 * is a 400 with an issue on `currentPassword` and counts as a failed sign-in (login-throttle.ts),
 * so a borrowed session guesses no faster than the login form. Every other session of the
 * user ends; this one stays.
 */
export async function changePassword(
  ctx: DomainContext & { clientAddress: string; session: Session },
  input: { currentPassword: string; newPassword: string },
): Promise<{ success: true }> {
  const userId = requireUser(ctx.auth);
  const user = await findUser(ctx.em, ctx.auth, userId);
  const wait = await countLoginAttempt(
    ctx.em,
    user.email,
    ctx.clientAddress,
    ctx.services.settings.loginThrottle,
  );
  if (wait > 0) throw tooManyRequests(`Too many wrong passwords; try again in ${wait} s`, wait);
  if (!(await passwordMatches(input.currentPassword, user.passwordHash))) {
    throw badRequest('The current password is not right', [
      { path: ['currentPassword'], message: 'is not your current password' },
    ]);
  }
  await forgiveLoginAttempt(ctx.em, user.email, ctx.clientAddress);
  const passwordHash = await hashNewPassword(input.newPassword);
  await ctx.em.transactional(async (em) => {
    // Locked: a concurrent removal of the user makes this a 404, not a write to a deleted row.
    const locked = await findUser(em, ctx.auth, userId, { lock: true });
    await replacePassword(em, locked, passwordHash, ctx.session.tokenHash, ctx.auth.actor);
  });
  return { success: true };
}

/** Ends the session the request presents (only that one: nobody can sign out someone else). */
export async function logOut(
  ctx: Pick<DomainContext, 'auth'> & { session: Session },
): Promise<{ success: true }> {
  // The procedure's access is 'user': an API key has no session to end (and is answered as the
  // key even beside a cookie), and a 200 that cleared the cookie would leave that session alive.
  requireUser(ctx.auth);
  await ctx.session.signOut();
  return { success: true };
}

/** The caller (a user, or an API key) and organization, as read when it was authenticated: no query. */
export function getCurrentUser(ctx: Pick<DomainContext, 'auth'>): CurrentCaller {
  return toCurrentCaller(ctx.auth);
}
