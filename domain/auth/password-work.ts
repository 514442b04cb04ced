import { unavailable } from '../errors.ts';
import { hashPassword, needsRehash, PasswordChecksBusy, verifyPassword } from './passwords.ts';

/**
 * Password hashing and checking as the routes need them: past the service's capacity for
 * password work (domain/auth/passwords.ts) the answer is a 503 with Retry-After, not a queue.
 */
async function withinCapacity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof PasswordChecksBusy)) throw error;
    throw unavailable('Too many password checks at once; try again in a moment', 1);
  }
}

export function passwordMatches(password: string, hash: string): Promise<boolean> {
  return withinCapacity(() => verifyPassword(password, hash));
}

export function hashNewPassword(password: string): Promise<string> {
  return withinCapacity(() => hashPassword(password));
}

/**
 * For a password just checked against `hash`: its hash at today's scheme and cost when `hash`
 * is older (scrypt, or a lower cost), else null. Also null when the password slots are busy:
 * the sign-in goes on, and the next one rehashes.
 */
export async function rehashedPassword(password: string, hash: string): Promise<string | null> {
  if (!needsRehash(hash)) return null;
  try {
    return await hashPassword(password);
  } catch (error) {
    if (error instanceof PasswordChecksBusy) return null;
    throw error;
  }
}
