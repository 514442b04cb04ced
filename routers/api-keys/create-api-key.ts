import { z } from 'zod';
import { apiKeyWithSecretOutput } from '../../domain/api-keys/api-key-output.ts';
import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { apiKeyFields } from './api-key.schema.ts';

export const createApiKeyInput = z.strictObject(apiKeyFields);

export const createApiKey = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'POST',
      path: '/api-keys',
      tags: ['api-keys'],
      summary: 'Create an API key (owner); its secret is shown in this answer only',
      description:
        'Makes a key with `read`, `write` or `admin` access (never owner), optionally expiring at `expiresAt`. The answer carries `secret` (`dk_…`), sent as `Authorization: Bearer dk_…`; only its hash is stored, so it cannot be shown again. Owner only; event `api_key.created`.',
    },
    successStatus: 201,
    location: '/api-keys/{apiKey.id}',
  })
  .input(createApiKeyInput)
  .output(apiKeyWithSecretOutput)
  .mutation(({ ctx, input }) => apiKeys.createApiKey(ctx, input));
