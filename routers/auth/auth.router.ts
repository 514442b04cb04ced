import { router } from '../trpc.ts';
import { changePassword } from './change-password.ts';
import { getCurrentUser } from './get-current-user.ts';
import { logIn } from './log-in.ts';
import { logOut } from './log-out.ts';

export const authRouter = router({ logIn, logOut, getCurrentUser, changePassword });
