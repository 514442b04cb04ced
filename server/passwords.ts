import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

// scrypt, memory-hard: N=2^15, r=8 needs 32 MiB per hash (OWASP's minimum is N=2^17 with
// r=8 p=1 or equivalent work; 2^15 with p=1 keeps a login around 50 ms on this 2-core box).
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

/**
 * Encoded as `scrypt$N$r$p$salt$hash` so the parameters can be raised later. On libuv's
 * pool, never the event loop, and within the same slots as the checks (below): callers who
 * set passwords (owners adding users, password changes) cannot pile up CPU and memory either.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await withCheckSlot(() =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, withMaxmem(PARAMS)),
  );
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * Checks a password against its stored hash. Anyone can ask for this (sign-in), and each
 * check holds 32 MiB and a libuv thread for ~50 ms, so checks run at most
 * `PASSWORD_CHECKS.concurrent` at a time with at most `PASSWORD_CHECKS.waiting` queued;
 * past that it throws `PasswordChecksBusy` (answered 503 with Retry-After) rather than
 * letting unauthenticated callers pile up CPU and memory.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await withCheckSlot(() =>
    scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, withMaxmem(params)),
  );
  return timingSafeEqual(actual, expected);
}

/**
 * Verified against when the e-mail is unknown, so both failures cost one scrypt with the
 * same parameters. Random salt and random "hash": nothing to compute up front (a lazily
 * computed decoy made the first unknown e-mail twice as slow), and no password matches it.
 */
export const DECOY_PASSWORD_HASH = [
  'scrypt',
  PARAMS.N,
  PARAMS.r,
  PARAMS.p,
  randomBytes(16).toString('base64'),
  randomBytes(KEY_LENGTH).toString('base64'),
].join('$');

/**
 * Two checks at once leave the other two of libuv's four threads to file and DNS work;
 * 32 waiting is under a second of queue (at ~50 ms a check).
 */
export const PASSWORD_CHECKS = { concurrent: 2, waiting: 32 };

export class PasswordChecksBusy extends Error {
  constructor() {
    super('Too many password checks in progress');
    this.name = 'PasswordChecksBusy';
  }
}

let running = 0;
const queue: (() => void)[] = [];

async function withCheckSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= PASSWORD_CHECKS.concurrent) {
    if (queue.length >= PASSWORD_CHECKS.waiting) throw new PasswordChecksBusy();
    // The finishing check hands its slot over directly (`running` stays as it is).
    await new Promise<void>((resolve) => queue.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    const next = queue.shift();
    if (next) next();
    else running -= 1;
  }
}

function withMaxmem(params: { N: number; r: number; p: number }) {
  return { ...params, maxmem: 256 * params.N * params.r };
}
