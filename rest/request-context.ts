import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context as KoaContext } from 'koa';
import { authenticateApiKey } from '../domain/auth/api-key-auth.ts';
import { hashSessionToken } from '../domain/auth/sessions.ts';
import type { Auth } from '../domain/context.ts';
import { preparedQueries } from '../domain/prepared-statements.ts';
import type { Services } from '../domain/services.ts';
import type { SessionControl } from '../routers/context.ts';
import { presentedApiKey } from './api-key-header.ts';
import type { Edge, RequestContext } from './edge.ts';
import { endSession, type SessionState, sessionOf } from './session-cookie.ts';

/**
 * Builds a procedure's context from a Koa request: a fresh EntityManager, the caller (an API
 * key from `Authorization: Bearer dk_…`, else the user of the `session` cookie, which
 * koa-session's store resolved before (`session-cookie.ts`); both on every request, in one
 * query, so a revoked key or session or a deleted user stops working at once), and sign-in/
 * sign-out on that cookie.
 */
export function createRequestContextFactory(orm: MikroORM, services: Services, edge: Edge) {
  return async (ctx: KoaContext): Promise<RequestContext> => {
    const em = orm.em.fork();
    const key = presentedApiKey(ctx);
    const state = ctx.state as SessionState;
    // The session lookup's failure, answered here in the transport's own shape.
    if (state.sessionError) throw state.sessionError;
    let auth: Auth | null = null;
    // An Authorization header decides alone: a valid key is the caller even beside a cookie,
    // and one that is not valid signs nobody in (no falling back to the cookie, which the
    // session store did not even read).
    if (key.kind === 'key') {
      auth = await authenticateApiKey(await preparedQueries(em), key.secret);
    } else if (key.kind === 'none') {
      auth = state.sessionAuth ?? null;
    }
    return {
      em,
      services,
      edge,
      auth,
      requestId: ctx.state.requestId,
      clientAddress: ctx.ip,
      operator: false,
      session: new CookieSession(ctx),
      accessDecisions: new Map(),
    };
  };
}

/**
 * Sign-in and sign-out on the `session` cookie of one request, through koa-session. A class,
 * not an object literal with a getter: a literal's getter is a new closure per request, held by
 * an accessor pair that V8 allocates in old space, so the whole finished request stayed
 * referenced from old space and was copied by every young-generation collection until the next
 * full one (measured: ~6 MB promoted per collection under load, 7 ms pauses; `docs/performance.md`,
 * "The accessor lint rule").
 */
class CookieSession implements SessionControl {
  readonly #ctx: KoaContext;

  constructor(ctx: KoaContext) {
    this.#ctx = ctx;
  }

  /** Computed only when asked for (a password change), not on every request. */
  get tokenHash(): string | null {
    const token = (this.#ctx.state as SessionState).sessionToken;
    return token ? hashSessionToken(token) : null;
  }

  async signIn(userId: string): Promise<void> {
    // A new token at each sign-in, and the one presented is dropped (koa-session's
    // `regenerate`: the store destroys it, then stores the new one): a token planted before
    // login (session fixation) is worth nothing after it.
    const session = sessionOf(this.#ctx);
    session.userId = userId;
    await session.regenerate();
  }

  async signOut(): Promise<void> {
    // Only the session this request presents: nobody can sign out someone else's. koa-session
    // destroys it in the store and clears the cookie when the response is committed.
    endSession(this.#ctx);
  }
}
