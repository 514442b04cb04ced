import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyAccess } from '../../entities/ApiKey.ts';
import { newId } from '../../entities/ids.ts';
import { Organization } from '../../entities/Organization.ts';
import type { DomainContext } from '../context.ts';
import { invalidField, missing, notFound } from '../errors.ts';
import { type EventScope, recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import { type ApiKeyOutput, type ApiKeyWithSecretOutput, toApiKeyOutput } from './api-key-output.ts';
import { newApiKeySecret } from './api-key-secret.ts';

export interface CreateApiKeyInput {
  name: string;
  access: ApiKeyAccess;
  /** ISO 8601; must lie in the future. Absent: the key never expires. */
  expiresAt?: string | undefined;
}

/** An owner creates a key for their organization; the secret is in this answer only. */
export function createApiKey(
  { em, auth }: DomainContext,
  input: CreateApiKeyInput,
): Promise<ApiKeyWithSecretOutput> {
  return insertApiKey(em, auth, auth.userId, input);
}

/** Operators (admin CLI): a key for an existing organization, found by name (404 otherwise). */
export async function createApiKeyForOrganization(
  { em }: { em: EntityManager },
  input: CreateApiKeyInput & { organization: string },
): Promise<ApiKeyWithSecretOutput & { organizationId: string }> {
  const organization = await em.findOne(Organization, { name: input.organization });
  if (!organization) throw missing(`Organization ${input.organization} was not found`);
  const created = await insertApiKey(
    em,
    { organizationId: organization.id, actor: SYSTEM_ACTOR },
    null,
    input,
  );
  return { ...created, organizationId: organization.id };
}

async function insertApiKey(
  em: EntityManager,
  scope: EventScope,
  createdBy: string | null,
  input: CreateApiKeyInput,
): Promise<ApiKeyWithSecretOutput> {
  const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt);
  // Checked against this service's clock, not the client's: a key born expired is a mistake.
  if (expiresAt && expiresAt.getTime() <= Date.now())
    throw invalidField(['expiresAt'], 'must be in the future');
  const { secret, secretHash, prefix } = newApiKeySecret();
  const key = em.create(ApiKey, {
    id: newId(),
    organization: scope.organizationId,
    name: input.name,
    access: input.access,
    secretHash,
    prefix,
    createdAt: new Date(),
    createdBy,
    expiresAt,
    lastUsedAt: null,
    revokedAt: null,
  });
  const output = toApiKeyOutput(key);
  recordEvent(em, scope, 'api_key.created', { aggregateId: key.id, payload: output });
  await em.flush();
  return { apiKey: output, secret };
}

/** Oldest first, revoked ones included (with `revokedAt`). */
export async function listApiKeys({ em, auth }: DomainContext): Promise<{ apiKeys: ApiKeyOutput[] }> {
  const keys = await em.find(
    ApiKey,
    { organization: auth.organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return { apiKeys: keys.map(toApiKeyOutput) };
}

/** One key of the organization (never its secret), revoked or not. */
export async function getApiKey({ em, auth }: DomainContext, apiKeyId: string): Promise<ApiKeyOutput> {
  const key = await em.findOne(ApiKey, { id: apiKeyId, organization: auth.organizationId });
  if (!key) throw notFound('API key', apiKeyId);
  return toApiKeyOutput(key);
}

/**
 * Revokes a key: it stops working with the next request (every request checks `revoked_at`).
 * The row is locked, so concurrent revokes write one `revokedAt` and one event; revoking a
 * revoked key again answers the same and changes nothing.
 */
export async function revokeApiKey(
  { em, auth }: DomainContext,
  apiKeyId: string,
): Promise<{ success: true }> {
  await em.transactional(async (tx) => {
    const key = await tx.findOne(
      ApiKey,
      { id: apiKeyId, organization: auth.organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!key) throw notFound('API key', apiKeyId);
    if (key.revokedAt) return;
    key.revokedAt = new Date();
    recordEvent(tx, auth, 'api_key.revoked', { aggregateId: key.id, payload: toApiKeyOutput(key) });
  });
  return { success: true };
}
