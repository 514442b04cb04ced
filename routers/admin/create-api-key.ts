import { z } from 'zod';
import { apiKeyWithSecretOutput } from '../../domain/api-keys/api-key-output.ts';
import * as apiKeys from '../../domain/api-keys/api-keys.ts';
import { apiKeyFields } from '../api-keys/api-key.schema.ts';
import { text } from '../shared.schema.ts';
import { publicProcedure } from '../trpc.ts';

export const createApiKeyInput = z.strictObject({
  organization: text().trim().min(1).max(200),
  ...apiKeyFields,
});

/** Operators only (admin CLI): a key for an existing organization; over HTTP it does not exist. */
export const createApiKey = publicProcedure
  .meta({ access: 'operator' })
  .input(createApiKeyInput)
  .output(apiKeyWithSecretOutput.extend({ organizationId: z.uuid() }))
  .mutation(({ ctx, input }) => apiKeys.createApiKeyForOrganization(ctx, input));
