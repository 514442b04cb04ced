import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '../entities/User.ts';
import type { Services } from '../server/services.ts';

/** Who is calling: resolved by the transport (session cookie) before any operation runs. */
export interface Auth {
  userId: string;
  organizationId: string;
  role: UserRole;
  /** Shown by `GET /auth/me`; read in the same statement that checked the session. */
  email: string;
  name: string;
  organizationName: string;
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
