import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '../../entities/User.ts';
import type { Auth } from '../context.ts';
import { accessOfRole } from './access.ts';

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
