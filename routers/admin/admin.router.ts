import { router } from '../trpc.ts';
import { createUser } from './create-user.ts';

export const adminRouter = router({ createUser });
