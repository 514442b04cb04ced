import { apiKeyOutput } from '../../domain/api-keys/api-key-output.ts';
import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { apiKeyIdInput } from './api-key.schema.ts';

export const getApiKey = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'GET',
      path: '/api-keys/{apiKeyId}',
      tags: ['api-keys'],
      summary: 'Get an API key (owner); never its secret',
      description:
        'One key of the organization with its `prefix`, access, creator, expiry, last use and revocation time. Owner only.',
      errorResponses: [403],
    },
  })
  .input(apiKeyIdInput)
  .output(apiKeyOutput)
  .query(({ ctx, input }) => apiKeys.getApiKey(ctx, input.apiKeyId));
