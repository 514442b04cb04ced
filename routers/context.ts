import type { EntityManager } from '@mikro-orm/postgresql';
import type { Auth } from '../domain/context.ts';
import type { DomainError } from '../domain/errors.ts';
import type { LiveEvents } from '../domain/ports/live-events.ts';
import type { Services } from '../domain/services.ts';
import type { BatchOrder } from './batch-order.ts';

/**
 * How a procedure signs a caller in or out. Transports with cookies (REST, /trpc) bind it
 * to the `session` cookie (domain/auth/callers.ts); in-process callers have no session and get `noSession`.
 */
export interface SessionControl {
  signIn(userId: string): Promise<void>;
  signOut(): Promise<void>;
  /** SHA-256 (hex) of the session token the request presents (kept by a password change); null without one. */
  readonly tokenHash: string | null;
}

/** A procedure's context: the domain's (with `auth` possibly absent) plus what the transport knows. */
export interface Context {
  /** A fresh EntityManager fork for this call: its identity map is never shared. */
  em: EntityManager;
  services: Services;
  auth: Auth | null;
  session: SessionControl;
  requestId: string;
  /** The client's address, for throttling; `in-process` for scripts. */
  clientAddress: string;
  /** True only for operators' in-process calls (admin CLI, seeding); never over HTTP. */
  operator: boolean;
  /**
   * The access decision of each call of this request, in the calls' order (tRPC's `batchIndex`):
   * null allowed, else the refusal. Made once, where the request was admitted (rest/admission.ts),
   * before its body was read or its calls counted; each procedure's middleware takes its own.
   * Absent for in-process callers, whose calls are decided as they are made.
   */
  admitted?: readonly (DomainError | null)[];
  /** A /trpc batch of mutations: each runs after the ones before it (routers/batch-order.ts). */
  batchOrder?: BatchOrder;
  /** The instance's live streams (subscriptions); HTTP transports only. */
  liveEvents?: LiveEvents;
  /** Ends the request's connection at once (a stream whose consumer is too slow); HTTP transports only. */
  disconnect?: () => void;
}

export const noSession: SessionControl = {
  async signIn() {},
  async signOut() {},
  tokenHash: null,
};
