import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context as KoaContext } from 'koa';
import { User } from '../entities/User.ts';
import type { Auth, Context, Services } from '../routers/context.ts';

/**
 * Builds a procedure's context from a Koa request: a fresh EntityManager, the signed-in
 * user (looked up on every request, so a deleted user's session stops working at once),
 * and sign-in/sign-out bound to koa-session.
 */
export function createKoaContextFactory(orm: MikroORM, services: Services) {
  return async (ctx: KoaContext): Promise<Context> => {
    const em = orm.em.fork();
    const userId = ctx.session?.userId;
    let auth: Auth | null = null;
    if (typeof userId === 'string') {
      const user = await em.findOne(User, userId);
      if (user) auth = { userId: user.id, organizationId: user.organization.id, role: user.role };
    }
    return {
      em,
      services,
      auth,
      requestId: ctx.state.requestId,
      clientAddress: ctx.ip,
      operator: false,
      session: {
        async signIn(id) {
          // A new key on sign-in: a session id planted before login is worth nothing after it.
          await ctx.session?.regenerate();
          ctx.session!.userId = id;
        },
        async signOut() {
          ctx.session = null;
        },
      },
    };
  };
}
