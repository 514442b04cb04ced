import { router } from '../trpc.ts';
import { createApiKey } from './create-api-key.ts';
import { getApiKey } from './get-api-key.ts';
import { listApiKeys } from './list-api-keys.ts';
import { revokeApiKey } from './revoke-api-key.ts';

export const apiKeysRouter = router({ createApiKey, listApiKeys, getApiKey, revokeApiKey });
