import { randomBytes, scryptSync } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECOY_PASSWORD_HASH } from '../domain/auth/passwords.ts';
import { startWithDatabaseClient } from './helpers/app-setup.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Issue 29, finding 10: passwords are hashed with argon2id at OWASP's parameters or above, in the
 * PHC string format; a hash of the former scheme (scrypt) still verifies and is replaced on the
 * next successful sign-in.
 */
let t: TestApp;
let db: pg.Client;
let close: () => Promise<void>;

beforeAll(async () => ({ t, db, close } = await startWithDatabaseClient()));
afterAll(() => close());

/** `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>`, base64 without padding. */
const PHC_ARGON2ID = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

async function storedHash(email: string): Promise<string> {
  const { rows } = await db.query('select password_hash from app_user where email = $1', [email]);
  return rows[0].password_hash;
}

/** OWASP's password storage cheat sheet: m=19 MiB, t=2, p=1, or m=46 MiB, t=1, p=1, at least. */
function expectOwaspArgon2id(hash: string) {
  const match = PHC_ARGON2ID.exec(hash);
  expect(match, hash.slice(0, 16)).not.toBeNull();
  const [memoryKib, passes, lanes] = [Number(match![1]), Number(match![2]), Number(match![3])];
  expect(lanes).toBeGreaterThanOrEqual(1);
  expect((memoryKib >= 19 * 1024 && passes >= 2) || (memoryKib >= 46 * 1024 && passes >= 1)).toBe(true);
  expect(Buffer.from(match![4]!, 'base64').length).toBeGreaterThanOrEqual(16);
  expect(Buffer.from(match![5]!, 'base64').length).toBeGreaterThanOrEqual(32);
}

/** A hash as the service stored them before argon2id: `scrypt$N$r$p$salt$hash`, N=2^15, r=8, p=1. */
function legacyScryptHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFKC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 << 20 });
  return ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), hash.toString('base64')].join('$');
}

const signIn = (email: string, password: string) => t.client().post('/api/auth/login', { email, password });

describe('password hashing', () => {
  it('stores every new password as argon2id in PHC form (POST /users, password change), never the same twice', async () => {
    const owner = await t.signedInClient();
    const body = { email: 'new-hire@hashing.test', name: 'New', role: 'member', password: 'same-password-1' };
    expect((await owner.post('/api/users', body)).status).toBe(201);
    const added = await storedHash(body.email);
    expectOwaspArgon2id(added);

    // The owner (created by the operators' procedure) has an argon2id hash too.
    expectOwaspArgon2id(await storedHash(owner.email));
    const changed = await owner.post('/api/auth/password', {
      currentPassword: owner.password,
      newPassword: 'same-password-1',
    });
    expect(changed.status).toBe(200);
    const ownerHash = await storedHash(owner.email);
    expectOwaspArgon2id(ownerHash);
    // A random salt each time: one password, two different hashes.
    expect(ownerHash.split('$')[4]).not.toBe(added.split('$')[4]);
    expect((await signIn(body.email, body.password)).status).toBe(200);
    expect((await signIn(owner.email, 'same-password-1')).status).toBe(200);
  });

  it('checks an unknown e-mail against a decoy of the very parameters a real hash has', async () => {
    const user = await t.signedInClient();
    const parameters = (hash: string) => hash.split('$').slice(0, 4).join('$');
    expect(parameters(DECOY_PASSWORD_HASH)).toBe(parameters(await storedHash(user.email)));
    expect((await signIn('nobody@hashing.test', user.password)).status).toBe(401);
  });

  it('signs in with a former scrypt hash and replaces it with argon2id; a wrong password changes nothing', async () => {
    const password = 'an-old-password';
    const email = 'veteran@hashing.test';
    await t.createUser({ organization: 'Hashing veterans', email, password });
    const legacy = legacyScryptHash(password);
    await db.query('update app_user set password_hash = $1 where email = $2', [legacy, email]);

    expect((await signIn(email, 'not-the-password')).status).toBe(401);
    expect(await storedHash(email)).toBe(legacy);

    expect((await signIn(email, password)).status).toBe(200);
    const upgraded = await storedHash(email);
    expectOwaspArgon2id(upgraded);
    // The new hash works, the password did not change, and it is not rehashed again.
    expect((await signIn(email, password)).status).toBe(200);
    expect(await storedHash(email)).toBe(upgraded);
    expect((await signIn(email, 'not-the-password')).status).toBe(401);
  });

  it('replaces a former scrypt hash at a password change, checking the current password against it', async () => {
    const user = await t.signedInClient();
    await db.query('update app_user set password_hash = $1 where id = $2', [
      legacyScryptHash(user.password),
      user.userId,
    ]);
    const response = await user.post('/api/auth/password', {
      currentPassword: user.password,
      newPassword: 'a-newer-password',
    });
    expect(response.status, response.text).toBe(200);
    expectOwaspArgon2id(await storedHash(user.email));
    expect((await signIn(user.email, 'a-newer-password')).status).toBe(200);
  });
});
