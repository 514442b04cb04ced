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
    },
    successStatus: 201,
  })
  .input(createApiKeyInput)
  .output(apiKeyWithSecretOutput)
  .mutation(({ ctx, input }) => apiKeys.createApiKey(ctx, input));
