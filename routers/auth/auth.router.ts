import { router } from '../trpc.ts';
import { login } from './login.ts';
import { logout } from './logout.ts';
import { me } from './me.ts';

export const authRouter = router({ login, logout, me });
