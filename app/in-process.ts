import type { MikroORM } from '@mikro-orm/postgresql';
import type { Auth } from '../domain/context.ts';
import type { Services } from '../domain/services.ts';
import { createCaller } from '../routers/app-router.ts';
import { type Context, noSession } from '../routers/context.ts';

/**
 * A caller for operators' scripts, running procedures in this process with no HTTP in
 * between: `operator` unlocks the admin procedures; `auth` (optional) acts as that user.
 * A caller holds one EntityManager (one unit of work): make a new one per operation, as the
 * server does per request, or its identity map grows and every flush slows down.
 */
export function createInProcessCaller(orm: MikroORM, services: Services, auth: Auth | null = null) {
  const context: Context = {
    em: orm.em.fork(),
    services,
    auth,
    session: noSession,
    requestId: 'in-process',
    clientAddress: 'in-process',
    operator: true,
  };
  return createCaller(context);
}
