import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../../entities/User.ts';
import { DECOY_PASSWORD_HASH, PasswordChecksBusy, verifyPassword } from '../../server/passwords.ts';
import type { Services } from '../../server/services.ts';
import type { DomainContext } from '../context.ts';
import { tooManyRequests, unauthorized, unavailable } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { type CurrentCaller, type CurrentUser, toCurrentCaller, toCurrentUser } from './auth-output.ts';
import { findAuth } from './find-auth.ts';
import { countLoginAttempt, forgiveLoginAttempt } from './login-throttle.ts';

/** How an operation signs the caller in or out: bound to the `session` cookie by the transport. */
export interface Session {
  signIn(userId: string): Promise<void>;
  signOut(): Promise<void>;
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
 * Checks an e-mail and password and signs the caller in. Throttled per e-mail and per client
 * address (see login-throttle.ts); an unknown e-mail costs the same as a wrong password.
 */
export async function logIn(
  ctx: LogInContext,
  input: { email: string; password: string },
): Promise<CurrentUser> {
  const limits = ctx.services.config.loginThrottle;
  // Counted before the password is checked, atomically: concurrent attempts cannot all slip
  // under the limit, and an attempt past it costs no password hash.
  const wait = await countLoginAttempt(ctx.em, input.email, ctx.clientAddress, limits);
  if (wait > 0) throw tooManyRequests(`Too many failed sign-ins; try again in ${wait} s`, wait);

  const user = await ctx.em.findOne(User, { email: input.email });
  // Verify against a decoy when the e-mail is unknown: both failures take the same time.
  let valid: boolean;
  try {
    valid = await verifyPassword(input.password, user?.passwordHash ?? DECOY_PASSWORD_HASH);
  } catch (error) {
    if (!(error instanceof PasswordChecksBusy)) throw error;
    throw unavailable('Too many sign-ins at once; try again in a moment', 1);
  }
  if (!user || !valid) throw unauthorized('Wrong e-mail or password');

  await forgiveLoginAttempt(ctx.em, input.email, ctx.clientAddress);
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

/** Ends the session the request presents (only that one: nobody can sign out someone else). */
export async function logOut(ctx: { session: Session }): Promise<{ success: true }> {
  await ctx.session.signOut();
  return { success: true };
}

/** The caller (a user, or an API key) and organization, as read when it was authenticated: no query. */
export function getCurrentUser(ctx: Pick<DomainContext, 'auth'>): CurrentCaller {
  return toCurrentCaller(ctx.auth);
}
