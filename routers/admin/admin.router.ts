import { router } from '../trpc.ts';
import { createUser } from './create-user.ts';
import { listOrganizationUsers } from './list-organization-users.ts';
import { setPassword } from './set-password.ts';

export const adminRouter = router({ createUser, listOrganizationUsers, setPassword });
