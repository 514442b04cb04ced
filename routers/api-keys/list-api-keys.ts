import { z } from 'zod';
import { apiKeyOutput } from '../../domain/api-keys/api-key-output.ts';
import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listApiKeys = authedProcedure
  .meta({
    access: 'owner',
    openapi: {
      method: 'GET',
      path: '/api-keys',
      tags: ['api-keys'],
      summary: 'The organization’s API keys (owner), revoked ones included; never their secrets',
      description:
        'Every key of the organization with its `prefix` (to recognise it), access, creator, expiry, last use (updated at most once a minute) and revocation time. Owner only.',
      errorResponses: [403],
    },
  })
  .input(noInput)
  .output(z.object({ apiKeys: z.array(apiKeyOutput) }))
  .query(({ ctx }) => apiKeys.listApiKeys(ctx));
