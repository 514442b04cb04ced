import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Auth } from '../context.ts';
import type { SqlQueryable } from '../prepared-statements.ts';
import { AUTH_COLUMNS, type AuthRow, authFromRow } from './find-auth.ts';
import { hashSecret } from './secret-hash.ts';

/**
 * Sessions (api.md, "Sessions (correction)"): the `session` cookie alone carries an opaque
 * random token of 256 bits (base64url); PostgreSQL keeps only its SHA-256, so a copy of the
 * `session` table signs nobody in. No companion cookie, no signing key: the token's entropy
 * is the protection. Sessions expire after `SESSION_MAX_AGE_HOURS` and slide forward at most
 * once an hour; deleting the row revokes one everywhere.
 */
/** A session is renewed (expiry and cookie pushed forward) at most this often. */
export const SESSION_RENEW_AFTER_SECONDS = 3600;

const TOKEN_BYTES = 32;

export function hashSessionToken(token: string): string {
  return hashSecret(token);
}

/** A new session token: 256 random bits in base64url (koa-session's `genid`). */
export function newSessionToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Stores a new session for `userId` under `token` (only its hash is kept). The user's expired
 * sessions go at the same time, so the table does not grow between restarts.
 */
export async function createSession(
  em: EntityManager,
  userId: string,
  token: string,
  maxAgeSeconds: number,
): Promise<void> {
  await em.getConnection().execute(
    `with expired as (delete from session where user_id = ? and expires_at <= now())
     insert into session (token_hash, user_id, created_at, renewed_at, expires_at)
     values (?, ?, now(), now(), now() + make_interval(secs => ?))`,
    [userId, hashSessionToken(token), userId, maxAgeSeconds],
  );
}

/**
 * Who the token signs in: session → user → organization in one statement. It is a named
 * (prepared) statement sent straight to pg: PostgreSQL parses and plans it once per
 * connection, not on every request, and nothing builds SQL per request. It only reads; the
 * sliding renewal is a second statement, sent only when the last renewal is an hour old,
 * whose condition is re-checked under the row lock, so concurrent requests renew a session
 * once, not once each.
 */
export async function authenticateSession(
  db: SqlQueryable,
  token: string,
  maxAgeSeconds: number,
): Promise<{ auth: Auth; renewed: boolean } | null> {
  const hash = hashSessionToken(token);
  const { rows } = await db.query<AuthRow & { stale: boolean }>({
    name: 'authenticate-session',
    text: `select ${AUTH_COLUMNS}, s.renewed_at <= now() - make_interval(secs => $2) as stale
             from session s join app_user u on u.id = s.user_id join organization o on o.id = u.organization_id
            where s.token_hash = $1 and s.expires_at > now()`,
    values: [hash, SESSION_RENEW_AFTER_SECONDS],
  });
  const row = rows[0];
  if (!row) return null;
  let renewed = false;
  if (row.stale) {
    const renewal = await db.query({
      name: 'renew-session',
      text: `update session set renewed_at = now(), expires_at = now() + make_interval(secs => $2)
              where token_hash = $1 and expires_at > now() and renewed_at <= now() - make_interval(secs => $3)`,
      values: [hash, maxAgeSeconds, SESSION_RENEW_AFTER_SECONDS],
    });
    renewed = renewal.rowCount === 1;
  }
  return { auth: authFromRow(row), renewed };
}

/** Revokes one session (logout, or the session presented at a new login). */
export async function revokeSession(em: EntityManager, token: string): Promise<void> {
  await em.getConnection().execute('delete from session where token_hash = ?', [hashSessionToken(token)]);
}

/**
 * Revokes every session of a user, except optionally the one whose token hashes to
 * `keepTokenHash` (a password change keeps the caller's own session). Runs in `em`'s
 * transaction when it has one, so the revocation commits with the change that caused it.
 * Removing a user revokes its sessions by foreign-key cascade.
 */
export async function revokeSessionsOfUser(
  em: EntityManager,
  userId: string,
  keepTokenHash?: string | null,
): Promise<number> {
  const rows = await em.execute<{ n: number }[]>(
    `with gone as (delete from session where user_id = ? and token_hash <> ? returning 1)
     select count(*)::int as n from gone`,
    [userId, keepTokenHash ?? ''],
  );
  return rows[0]?.n ?? 0;
}

/** Expired rows are never read (see `authenticateSession`); this keeps the table small. */
export async function deleteExpiredSessions(orm: MikroORM): Promise<void> {
  await orm.em.getConnection().execute('delete from session where expires_at <= now()');
}
