import { defineEntity, p } from '@mikro-orm/core';
import { User } from './User.ts';

/**
 * Server-side session (koa-session external store). The cookie carries only the signed
 * key; deleting the row revokes the session on every instance at once.
 */
const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'session',
  properties: {
    id: p.string().length(64).primary(),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    data: p.json<Record<string, unknown>>(),
    expiresAt: p.datetime().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
