import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '../entities/User.ts';
import type { Access } from './auth/access.ts';
import type { Services } from './services.ts';

/** Who made a change: recorded as `payload.actor` on every event the caller causes. */
export interface Actor {
  type: 'user' | 'api_key';
  id: string;
}

/**
 * Who is calling: resolved by the transport (session cookie or `Authorization: Bearer dk_…`)
 * before any operation runs. Two kinds of caller: a user, or an organization's API key; the
 * user-only fields are null for a key. Ask `accessOf(auth)` (domain/auth/access.ts) what it may do.
 */
export interface Auth {
  organizationId: string;
  organizationName: string;
  /** Computed when the caller was authenticated: a user's role's, or the key's own. */
  access: Access;
  actor: Actor;
  /** Users only (null for an API key). Shown by `GET /auth/me`; read in the statement that checked the session. */
  userId: string | null;
  role: UserRole | null;
  email: string | null;
  name: string | null;
  /** API keys only (null for a user). */
  apiKey: { id: string; name: string } | null;
}

/**
 * What an operation of the domain layer works with: its unit of work (a fresh EntityManager
 * fork per call), the adapters, and who asks. A tRPC procedure's context is one.
 */
export interface DomainContext {
  em: EntityManager;
  services: Services;
  auth: Auth;
}
