import { z } from 'zod';
import { API_KEY_ACCESS, type ApiKey } from '../../entities/ApiKey.ts';

/** An API key as every route answers it and as its events carry it: never its secret or hash. */
export const apiKeyOutput = z
  .object({
    id: z.uuid(),
    name: z.string(),
    access: z.enum(API_KEY_ACCESS),
    prefix: z.string().meta({ description: 'The secret’s first 8 characters after `dk_`, to recognise it' }),
    createdAt: z.iso.datetime(),
    createdBy: z
      .uuid()
      .nullable()
      .meta({ description: 'The owner who created it; null when an operator did' }),
    expiresAt: z.iso.datetime().nullable(),
    lastUsedAt: z.iso.datetime().nullable().meta({ description: 'Updated at most once a minute' }),
    revokedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });

/** The answer of a create: the only time the secret is shown. */
export const apiKeyWithSecretOutput = z
  .object({
    apiKey: apiKeyOutput,
    secret: z
      .string()
      .meta({ description: 'The key (`dk_…`), shown only here: send it as `Authorization: Bearer …`' }),
  })
  .meta({ id: 'NewApiKey' });

export type ApiKeyOutput = z.infer<typeof apiKeyOutput>;
export type ApiKeyWithSecretOutput = z.infer<typeof apiKeyWithSecretOutput>;

export function toApiKeyOutput(key: ApiKey): ApiKeyOutput {
  return {
    id: key.id,
    name: key.name,
    access: key.access,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    createdBy: key.createdBy?.id ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
