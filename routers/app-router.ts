import { actionConfigsRouter } from './action-configs/action-configs.router.ts';
import { adminRouter } from './admin/admin.router.ts';
import { apiKeysRouter } from './api-keys/api-keys.router.ts';
import { authRouter } from './auth/auth.router.ts';
import { brandingRouter } from './branding/branding.router.ts';
import { contractsRouter } from './contracts/contracts.router.ts';
import { decksRouter } from './decks/decks.router.ts';
import { eventsRouter } from './events/events.router.ts';
import { exportsRouter } from './exports/exports.router.ts';
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

/** What HTTP callers reach (REST and /trpc): every resource's router, from its folder. */
const httpRouters = {
  auth: authRouter,
  decks: decksRouter,
  branding: brandingRouter,
  slides: slidesRouter,
  actionConfigs: actionConfigsRouter,
  intro: introRouter,
  notifications: notificationsRouter,
  events: eventsRouter,
  images: imagesRouter,
  kb: kbRouter,
  contracts: contractsRouter,
  faqs: faqsRouter,
  generation: generationRouter,
  exports: exportsRouter,
  voices: voicesRouter,
  users: usersRouter,
  apiKeys: apiKeysRouter,
};

/**
 * The whole API: the HTTP routers and the operators' `admin` procedures, which only in-process
 * callers reach (`access: 'operator'`; over HTTP they answer 404).
 */
export const appRouter = router({ ...httpRouters, admin: adminRouter });

const httpRouter = router(httpRouters);
/** For TypeScript clients over HTTP: `createTRPCClient<AppRouter>(…)`, without the operators' procedures. */
export type AppRouter = typeof httpRouter;
/** Everything, the operators' procedures included: the type of `createCaller`'s callers. */
export type FullAppRouter = typeof appRouter;

/** For in-process callers (scripts, seeding): `createCaller(context)`. */
export const createCaller = createCallerFactory(appRouter);
