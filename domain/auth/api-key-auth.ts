import type { ApiKeyAccess } from '../../entities/ApiKey.ts';
import type { Auth } from '../context.ts';
import type { SqlQueryable } from '../prepared-statements.ts';
import { hashSecret } from './secret-hash.ts';

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
