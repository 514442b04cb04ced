import { adminRouter } from './admin/admin.router.ts';
import { authRouter } from './auth/auth.router.ts';
import { decksRouter } from './decks/decks.router.ts';
import { createCallerFactory, router } from './trpc.ts';

/** The whole API. Each resource's router lives in its folder; this file only composes. */
export const appRouter = router({
  auth: authRouter,
  decks: decksRouter,
  admin: adminRouter,
});

/** For TypeScript clients: `createTRPCClient<AppRouter>(…)`. */
export type AppRouter = typeof appRouter;

/** For in-process callers (scripts, seeding): `createCaller(context)`. */
export const createCaller = createCallerFactory(appRouter);
