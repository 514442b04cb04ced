import { defineEntity, p } from '@mikro-orm/core';
import { User } from './User.ts';

/**
 * A signed-in session. The `session` cookie carries a random token; only its SHA-256 is
 * kept here, so a copy of this table signs nobody in. Deleting the row revokes the session
 * on every instance at once (see `domain/auth/callers.ts`).
 */
const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'session',
  properties: {
    /** Hex SHA-256 of the cookie's token. */
    tokenHash: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    createdAt: p.datetime(),
    /** Last sliding renewal (at most one an hour), which also moved `expiresAt`. */
    renewedAt: p.datetime(),
    expiresAt: p.datetime().index(),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
