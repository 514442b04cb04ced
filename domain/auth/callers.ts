import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ApiKeyAccess } from '../../entities/ApiKey.ts';
import type { UserRole } from '../../entities/User.ts';
import type { Auth } from '../context.ts';
import type { SqlQueryable } from '../prepared-statements.ts';
import { accessOfRole } from './access.ts';

/**
 * Who a request's session or API key signs in — the database half of authentication (the cookie and
 * header halves are rest/request-context.ts): sessions stored as the SHA-256 of their token, API keys
 * as the SHA-256 of their secret, each resolved with its user and organization in one statement.
 */

/**
 * How a bearer secret (session token, API key) is stored and looked up: its hex SHA-256. The
 * secrets carry 256 random bits, so a plain hash suffices (nothing to brute-force), and a
 * lookup by hash never compares secrets character by character.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The columns of an `Auth`, as selected from `app_user u join organization o` (see `authFromRow`). */
export const AUTH_COLUMNS =
  'u.id as user_id, u.organization_id, u.role, u.email, u.name, o.name as organization_name';

export interface AuthRow {
  user_id: string;
  organization_id: string;
  role: UserRole;
  email: string;
  name: string;
  organization_name: string;
}

export function authFromRow(row: AuthRow): Auth {
  return {
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    access: accessOfRole(row.role),
    actor: { type: 'user', id: row.user_id },
    userId: row.user_id,
    role: row.role,
    email: row.email,
    name: row.name,
    apiKey: null,
  };
}

/** A user as a caller (for in-process callers and sign-in), in one statement; null when the user is gone. */
export async function findAuth(em: EntityManager, userId: string): Promise<Auth | null> {
  const rows = await em
    .getConnection()
    .execute<AuthRow[]>(
      `select ${AUTH_COLUMNS} from app_user u join organization o on o.id = u.organization_id where u.id = ?`,
      [userId],
    );
  return rows[0] ? authFromRow(rows[0]) : null;
}

// Sessions (api.md, "Sessions (correction)"): the `session` cookie alone carries an opaque
// random token of 256 bits (base64url); PostgreSQL keeps only its SHA-256 (`hashSecret`), so a copy
// of the `session` table signs nobody in. No companion cookie, no signing key: the token's entropy
// is the protection. Sessions expire after `SESSION_MAX_AGE_HOURS` and slide forward at most
// once an hour; deleting the row revokes one everywhere.

/** A session is renewed (expiry and cookie pushed forward) at most this often. */
export const SESSION_RENEW_AFTER_SECONDS = 3600;

const TOKEN_BYTES = 32;

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
    [userId, hashSecret(token), userId, maxAgeSeconds],
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
  const hash = hashSecret(token);
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
  await em.getConnection().execute('delete from session where token_hash = ?', [hashSecret(token)]);
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

/** `lastUsedAt` is written at most this often per key (api.md). */
export const API_KEY_TOUCH_AFTER_SECONDS = 60;

interface ApiKeyAuthRow {
  id: string;
  name: string;
  access: ApiKeyAccess;
  organization_id: string;
  organization_name: string;
}

/**
 * Who the key is, in one round trip: one named (prepared) statement finds the key by the
 * SHA-256 of its secret (never a comparison of secrets), unrevoked and unexpired, joined to
 * its organization, and in the same statement bumps `last_used_at` when it is a minute old.
 * The update re-checks its condition under the row lock, so concurrent requests write it
 * once a minute, not once each.
 */
export async function authenticateApiKey(db: SqlQueryable, secret: string): Promise<Auth | null> {
  const { rows } = await db.query<ApiKeyAuthRow>({
    name: 'authenticate-api-key',
    text: `with found as (
             select k.id, k.name, k.access, k.organization_id, o.name as organization_name,
                    k.last_used_at is null or k.last_used_at <= now() - make_interval(secs => $2) as stale
               from api_key k join organization o on o.id = k.organization_id
              where k.secret_hash = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
           ), touched as (
             update api_key set last_used_at = now()
              where id = (select id from found where stale)
                and (last_used_at is null or last_used_at <= now() - make_interval(secs => $2))
           )
           select id, name, access, organization_id, organization_name from found`,
    values: [hashSecret(secret), API_KEY_TOUCH_AFTER_SECONDS],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    access: row.access,
    actor: { type: 'api_key', id: row.id },
    userId: null,
    role: null,
    email: null,
    name: null,
    apiKey: { id: row.id, name: row.name },
  };
}
