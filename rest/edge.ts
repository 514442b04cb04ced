import type { LiveEvents } from '../domain/ports/live-events.ts';
import type { Context } from '../routers/context.ts';
import type { BodyFingerprint } from './body-fingerprint.ts';
import type { RateLimiter, RateLimits } from './rate-limit.ts';
import type { UploadBudget } from './upload-budget.ts';

/** The settings the facade reads; `app/config.ts`'s `AppConfig` satisfies this. */
export interface EdgeSettings {
  jsonBodyLimitBytes: number;
  session: { maxAgeMs: number };
  rateLimits: RateLimits;
  idempotency: { ttlSeconds: number; abandonAfterSeconds: number };
  uploads: { idleTimeoutMs: number; imageMaxBytes: number; kbMaxBytes: number; contractMaxBytes: number };
}

/**
 * What the transports hold besides the domain's services: per-request limits that mean nothing
 * to the domain (built once at start, app/app.ts).
 */
export interface Edge {
  settings: EdgeSettings;
  /** The per-minute request limits, counted across instances (rest/rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** Bytes of uploads held in memory by requests in flight, in all and per organization and caller. */
  uploadBudget: UploadBudget;
  /** Keyed fingerprint of a request's input, for Idempotency-Key comparisons. */
  bodyFingerprint: BodyFingerprint;
  /** The instance's live streams and their reader (set once the database is open, app/app.ts). */
  liveEvents?: LiveEvents;
}

/** A procedure's context as the facade makes it: with the edge it was made under. */
export interface RequestContext extends Context {
  edge: Edge;
}
