import { defineEntity, p } from '@mikro-orm/core';

/**
 * Failed-sign-in counters per client address, per e-mail and address, and per e-mail, in
 * PostgreSQL so that every instance of the service counts the same failures. Updated with one
 * atomic upsert (see `domain/auth/login-throttle.ts`), never through the unit of work; rows
 * whose window has ended are removed by `app/workers/login-throttle-sweep.ts`.
 */
const LoginThrottleSchema = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    key: p.string().length(400).primary(),
    failures: p.integer(),
    // Indexed for the sweep of rows whose window has ended.
    windowStartedAt: p.datetime().index(),
    /** The latest counted attempt, and the one before it (null: none in this window). */
    lastFailureAt: p.datetime().nullable(),
    previousFailureAt: p.datetime().nullable(),
  },
});

export class LoginThrottle extends LoginThrottleSchema.class {}
LoginThrottleSchema.setClass(LoginThrottle);
