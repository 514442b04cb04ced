import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { successOutput } from '../shared.schema.ts';
import { ownerProcedure } from '../trpc.ts';
import { apiKeyIdInput } from './api-key.schema.ts';

export const revokeApiKey = ownerProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/api-keys/{apiKeyId}',
      tags: ['api-keys'],
      summary: 'Revoke an API key (owner): it stops working at once',
    },
  })
  .input(apiKeyIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => apiKeys.revokeApiKey(ctx, input.apiKeyId));
