import {
  argon2 as argon2Callback,
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';

const argon2 = promisify(argon2Callback);
const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** Argon2id's cost: `memory` in KiB, `passes` over it, `parallelism` lanes. */
interface Argon2Cost {
  memory: number;
  passes: number;
  parallelism: number;
}

/**
 * argon2id at OWASP's first recommendation (password storage cheat sheet): 19 MiB, 2 passes,
 * 1 lane. Of its two equivalent settings this one holds the least memory while a check runs
 * (two at once: 38 MiB). Raising it later rehashes each password at its next sign-in.
 */
const COST: Argon2Cost = { memory: 19 * 1024, passes: 2, parallelism: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/**
 * The PHC string format (`$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`, unpadded base64), as
 * argon2's reference implementation and most libraries write it: the cost travels with the hash.
 */
function phcString(cost: Argon2Cost, salt: Buffer, hash: Buffer): string {
  const base64 = (bytes: Buffer) => bytes.toString('base64').replaceAll('=', '');
  return `${phcPrefix(cost)}${base64(salt)}$${base64(hash)}`;
}

function phcPrefix(cost: Argon2Cost): string {
  return `$argon2id$v=19$m=${cost.memory},t=${cost.passes},p=${cost.parallelism}$`;
}

/** What today's hashes start with: a stored hash that does not is rehashed (`needsRehash`). */
const CURRENT_PREFIX = phcPrefix(COST);

function argon2id(password: string, salt: Buffer, cost: Argon2Cost, length: number): Promise<Buffer> {
  return argon2('argon2id', { message: password.normalize('NFKC'), nonce: salt, tagLength: length, ...cost });
}

/**
 * The one way a password is hashed (sign-up by operators, the demo seed, POST /users, password
 * changes, rehashing). On libuv's pool, never the event loop, and within the same slots as the
 * checks (below): callers who set passwords cannot pile up CPU and memory either.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await withCheckSlot(() => argon2id(password, salt, COST, HASH_BYTES));
  return phcString(COST, salt, hash);
}

/**
 * Checks a password against its stored hash: argon2id (PHC form), or the scrypt hashes
 * (`scrypt$N$r$p$salt$hash`) stored before it. Anyone can ask for this (sign-in), and each
 * check holds memory and a libuv thread for tens of milliseconds, so checks run at most
 * `PASSWORD_CHECKS.concurrent` at a time with at most `PASSWORD_CHECKS.waiting` queued; past
 * that it throws `PasswordChecksBusy` (answered 503 with Retry-After) rather than letting
 * unauthenticated callers pile up CPU and memory. A hash it cannot read matches nothing.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  if (encoded.startsWith('$argon2id$')) return verifyArgon2id(password, encoded);
  if (encoded.startsWith('scrypt$')) return verifyScrypt(password, encoded);
  return false;
}

/** True when the hash is not of today's scheme and cost: replace it once the password is known. */
export function needsRehash(encoded: string): boolean {
  return !encoded.startsWith(CURRENT_PREFIX);
}

async function verifyArgon2id(password: string, encoded: string): Promise<boolean> {
  const [, , version, costText, salt, hash] = encoded.split('$');
  const cost = parseCost(costText);
  if (version !== 'v=19' || !cost || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  if (expected.length < 4) return false;
  const actual = await withCheckSlot(() =>
    argon2id(password, Buffer.from(salt, 'base64'), cost, expected.length),
  );
  return timingSafeEqual(actual, expected);
}

/** `m=…,t=…,p=…`, each a whole number in argon2's range (and memory at most 4 GiB); else null. */
function parseCost(text: string | undefined): Argon2Cost | null {
  const [m, t, p, ...rest] = (text ?? '').split(',');
  if (rest.length > 0 || !m?.startsWith('m=') || !t?.startsWith('t=') || !p?.startsWith('p=')) return null;
  const cost = { memory: Number(m.slice(2)), passes: Number(t.slice(2)), parallelism: Number(p.slice(2)) };
  const whole = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  const valid =
    whole(cost.parallelism, 1, 255) &&
    whole(cost.passes, 1, 1000) &&
    whole(cost.memory, 8 * cost.parallelism, 4 * 1024 * 1024);
  return valid ? cost : null;
}

/** The scheme before argon2id (N=2^15, r=8, p=1): still verified, and rehashed at the next sign-in. */
async function verifyScrypt(password: string, encoded: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = encoded.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await withCheckSlot(() =>
    scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
      ...params,
      maxmem: 256 * params.N * params.r,
    }),
  );
  return timingSafeEqual(actual, expected);
}

/**
 * Verified against when the e-mail is unknown, so that both failures cost one argon2id at
 * today's cost. Random salt and random "hash": nothing to compute up front (a lazily computed
 * decoy made the first unknown e-mail twice as slow), and no password matches it.
 */
export const DECOY_PASSWORD_HASH = phcString(COST, randomBytes(SALT_BYTES), randomBytes(HASH_BYTES));

/**
 * Two checks at once leave the other two of libuv's four threads to file and DNS work;
 * 32 waiting is under a second of queue (at tens of milliseconds a check).
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
