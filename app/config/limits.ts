import { z } from 'zod';
import { configSection, integer } from './section.ts';

/** What one caller and one organization may ask per minute, and how long an idempotency key holds. */
export const limits = configSection({
  title: 'Request limits and idempotency',
  variables: {
    RATE_LIMIT_PER_MINUTE: integer(1).default(600).meta({
      description: 'Requests (and `/trpc` calls) per caller per minute, all instances together (429)',
    }),
    HEAVY_LIMIT_PER_MINUTE: integer(1).default(30).meta({
      description:
        'Heavy requests (contract import, FAQ create and edit, generation start, export start, image upload, adding a user) per organization per minute, all instances together (429)',
    }),
    RATE_LIMIT_STORE: z.enum(['postgres', 'memory']).default('postgres').meta({
      description:
        '`postgres`: the counts live in the database every instance shares (each instance counts alone, and logs a warning, while it cannot reach it); `memory`: each instance counts alone (one instance only)',
    }),
    IDEMPOTENCY_TAKEOVER_SECONDS: integer(1).default(600).meta({
      description: 'A request with an `Idempotency-Key` still running after this is taken over by a retry',
    }),
    IDEMPOTENCY_SWEEP_INTERVAL_MS: integer(10)
      .default(600_000)
      .meta({ description: 'How often each instance removes idempotency keys past their 24 hours' }),
  },
  settings: (env) => ({
    rateLimits: {
      /** Requests (and /trpc calls) per caller per minute, counted across instances. */
      perCallerPerMinute: env.RATE_LIMIT_PER_MINUTE,
      /** Heavy requests (procedures whose meta says `heavy`) per organization per minute. */
      heavyPerOrganizationPerMinute: env.HEAVY_LIMIT_PER_MINUTE,
      /** Where the counts live: the shared database, or this instance's memory. */
      store: env.RATE_LIMIT_STORE,
    },
    idempotency: {
      /** How long the first completed answer to a key is kept (api.md: 24 hours). */
      ttlSeconds: 24 * 3600,
      /** A claim still running after this belongs to a request that died: another may take it over. */
      abandonAfterSeconds: env.IDEMPOTENCY_TAKEOVER_SECONDS,
      sweepIntervalMs: env.IDEMPOTENCY_SWEEP_INTERVAL_MS,
    },
  }),
});
