import { defineEntity, p } from '@mikro-orm/core';

/**
 * The per-minute request counters every instance shares (rest/rate-limit.ts): one row per
 * caller or organization window, in rate-limiter-flexible's own layout (`RateLimiterPostgres`),
 * updated by its one atomic upsert, never through the unit of work. The table is UNLOGGED
 * (its migration): a count is worth no WAL write, and a crash that empties it only forgets a
 * minute of counting.
 */
const RateLimitCounterSchema = defineEntity({
  name: 'RateLimitCounter',
  tableName: 'rate_limit_counter',
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    /** Unix milliseconds at which the window ends (null: never). */
    expire: p.bigint('number').nullable(),
  },
});

export class RateLimitCounter extends RateLimitCounterSchema.class {}
RateLimitCounterSchema.setClass(RateLimitCounter);
