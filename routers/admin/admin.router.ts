import { router } from '../trpc.ts';
import { createApiKey } from './create-api-key.ts';
import { createUser } from './create-user.ts';
import { listOrganizationUsers } from './list-organization-users.ts';
import { setPassword } from './set-password.ts';

export const adminRouter = router({ createUser, createApiKey, listOrganizationUsers, setPassword });
