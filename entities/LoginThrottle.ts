import { defineEntity, p } from '@mikro-orm/core';

/**
 * Failed-login counters per e-mail and per client address, in PostgreSQL so that every
 * instance of the service counts the same failures. Updated with one atomic upsert
 * (see `routers/auth/login-throttle.ts`), never through the unit of work.
 */
const LoginThrottleSchema = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    key: p.string().length(400).primary(),
    failures: p.integer(),
    windowStartedAt: p.datetime(),
  },
});

export class LoginThrottle extends LoginThrottleSchema.class {}
LoginThrottleSchema.setClass(LoginThrottle);
