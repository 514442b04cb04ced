import { actionConfigsRouter } from './action-configs/action-configs.router.ts';
import { adminRouter } from './admin/admin.router.ts';
import { apiKeysRouter } from './api-keys/api-keys.router.ts';
import { authRouter } from './auth/auth.router.ts';
import { brandingRouter } from './branding/branding.router.ts';
import { contractsRouter } from './contracts/contracts.router.ts';
import { decksRouter } from './decks/decks.router.ts';
import { faqsRouter } from './faqs/faqs.router.ts';
import { generationRouter } from './generation/generation.router.ts';
import { imagesRouter } from './images/images.router.ts';
import { introRouter } from './intro/intro.router.ts';
import { kbRouter } from './kb/kb.router.ts';
import { notificationsRouter } from './notifications/notifications.router.ts';
import { slidesRouter } from './slides/slides.router.ts';
import { createCallerFactory, router } from './trpc.ts';
import { usersRouter } from './users/users.router.ts';
import { voicesRouter } from './voices/voices.router.ts';

/** The whole API. Each resource's router lives in its folder; this file only composes. */
export const appRouter = router({
  auth: authRouter,
  decks: decksRouter,
  branding: brandingRouter,
  slides: slidesRouter,
  actionConfigs: actionConfigsRouter,
  intro: introRouter,
  notifications: notificationsRouter,
  images: imagesRouter,
  kb: kbRouter,
  contracts: contractsRouter,
  faqs: faqsRouter,
  generation: generationRouter,
  voices: voicesRouter,
  users: usersRouter,
  admin: adminRouter,
  apiKeys: apiKeysRouter,
});

/** For TypeScript clients: `createTRPCClient<AppRouter>(…)`. */
export type AppRouter = typeof appRouter;

/** For in-process callers (scripts, seeding): `createCaller(context)`. */
export const createCaller = createCallerFactory(appRouter);
