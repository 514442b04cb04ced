import { router } from '../trpc.ts';
import { createApiKey } from './create-api-key.ts';
import { createUser } from './create-user.ts';

export const adminRouter = router({ createUser, createApiKey });
