import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { apiKeyIdInput } from './api-key.schema.ts';

export const revokeApiKey = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'DELETE',
      path: '/api-keys/{apiKeyId}',
      tags: ['api-keys'],
      summary: 'Revoke an API key (owner): it stops working at once',
      description:
        'Sets `revokedAt`: every later request with the key is a 401. Owner only; event `api_key.revoked`.',
    },
  })
  .input(apiKeyIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => apiKeys.revokeApiKey(ctx, input.apiKeyId));
