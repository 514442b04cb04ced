import { defineEntity, p } from '@mikro-orm/core';

export const IDEMPOTENCY_STATES = ['running', 'completed'] as const;

/**
 * One caller's `Idempotency-Key` and the first completed answer to it (api.md, "Idempotent
 * retries"). In PostgreSQL so that every instance sees the same claims; written only by the
 * atomic statements of `domain/idempotency/idempotency-keys.ts`, never through the unit of work.
 */
const IdempotencyKeySchema = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    /** `callerKeyOf(auth)`: keys of two callers never meet. */
    callerKey: p.string().length(200).primary(),
    key: p.string().length(255).primary(),
    method: p.string().length(10),
    path: p.text(),
    /** HMAC-SHA-256 (hex, rest/body-fingerprint.ts) of the input: JSON as parsed; multipart: the file, its name and type. */
    bodyHash: p.string().length(64),
    state: p.enum(IDEMPOTENCY_STATES),
    /** New at each claim: only the request holding it may complete or release the row. */
    claimToken: p.uuid(),
    claimedAt: p.datetime(),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    /** The answer's headers that matter to a replay (content type, Location). */
    responseHeaders: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export class IdempotencyKey extends IdempotencyKeySchema.class {}
IdempotencyKeySchema.setClass(IdempotencyKey);
