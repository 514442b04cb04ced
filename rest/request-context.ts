import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context as KoaContext } from 'koa';
import type { Auth } from '../domain/context.ts';
import type { Context } from '../routers/context.ts';
import { authenticateApiKey, presentedApiKey } from '../server/api-key-auth.ts';
import { preparedQueries } from '../server/prepared-statements.ts';
import type { Services } from '../server/services.ts';
import {
  authenticateSession,
  createSession,
  hashSessionToken,
  presentedSessionToken,
  revokeSession,
  setSessionCookie,
} from '../server/sessions.ts';

/**
 * Builds a procedure's context from a Koa request: a fresh EntityManager, the caller (an API
 * key from `Authorization: Bearer dk_…`, else the user of the `session` cookie; resolved on
 * every request, in one query, so a revoked key or session or a deleted user stops working at
 * once), and sign-in/sign-out on that cookie.
 * The session query is one fixed prepared statement on MikroORM's own pg pool
 * (`server/prepared-statements.ts`), with nothing for an ORM to build.
 */
export function createRequestContextFactory(orm: MikroORM, services: Services) {
  const maxAgeSeconds = services.config.session.maxAgeMs / 1000;
  return async (ctx: KoaContext): Promise<Context> => {
    const em = orm.em.fork();
    const key = presentedApiKey(ctx);
    // With an Authorization header the cookie is not read at all: neither the caller nor
    // what a sign-in or sign-out would revoke.
    const presented = key.kind === 'none' ? presentedSessionToken(ctx) : undefined;
    let auth: Auth | null = null;
    // An Authorization header decides alone: a valid key is the caller even beside a cookie,
    // and one that is not valid signs nobody in (no falling back to the cookie).
    if (key.kind === 'key') {
      auth = await authenticateApiKey(await preparedQueries(em), key.secret);
    } else if (presented) {
      const found = await authenticateSession(await preparedQueries(em), presented, maxAgeSeconds);
      if (found) {
        auth = found.auth;
        // The cookie's own lifetime follows the row's, or the browser would drop it first.
        if (found.renewed) setSessionCookie(ctx, presented, maxAgeSeconds);
      }
    }
    return {
      em,
      services,
      auth,
      requestId: ctx.state.requestId,
      clientAddress: ctx.ip,
      operator: false,
      session: {
        // Computed only when asked for (a password change), not on every request.
        get tokenHash() {
          return presented ? hashSessionToken(presented) : null;
        },
        async signIn(userId) {
          // A new token at each sign-in, and the one presented is dropped: a token planted
          // before login (session fixation) is worth nothing after it.
          const token = await createSession(em, userId, maxAgeSeconds);
          if (presented) await revokeSession(em, presented);
          setSessionCookie(ctx, token, maxAgeSeconds);
        },
        async signOut() {
          // Only the session this request presents: nobody can sign out someone else's.
          if (presented) await revokeSession(em, presented);
          setSessionCookie(ctx, null, maxAgeSeconds);
        },
      },
    };
  };
}
