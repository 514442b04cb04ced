import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './Organization.ts';
import { User } from './User.ts';

/** What an API key may do (api.md, "Who may do what"): a key is never an owner. */
export const API_KEY_ACCESS = ['read', 'write', 'admin'] as const;
export type ApiKeyAccess = (typeof API_KEY_ACCESS)[number];

/**
 * An organization's API key. The secret (`dk_…`) is shown once, at creation; only its SHA-256
 * is kept, so a copy of this table authenticates nobody. Revoking keeps the row (its history
 * stays listed) and stops the key at once (see `domain/auth/callers.ts`).
 */
const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    access: p.enum(API_KEY_ACCESS),
    /** Hex SHA-256 of the secret: the only way a key is looked up. */
    secretHash: p.string().length(64).unique().hidden(),
    /** The secret's first 8 characters after `dk_`, to recognise a key in a list. */
    prefix: p.string().length(8),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The owner who created it; null when an operator did (admin CLI) or the user is gone. */
    createdBy: () => p.manyToOne(User).deleteRule('set null').nullable().ref(),
    expiresAt: p.datetime().nullable(),
    /** Written at most once a minute per key. */
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
