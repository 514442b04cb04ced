import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Context as KoaContext } from 'koa';
import { authenticateApiKey } from '../domain/auth/api-key-auth.ts';
import {
  authenticateSession,
  createSession,
  hashSessionToken,
  revokeSession,
} from '../domain/auth/sessions.ts';
import type { Auth } from '../domain/context.ts';
import { preparedQueries } from '../domain/prepared-statements.ts';
import type { Services } from '../domain/services.ts';
import type { SessionControl } from '../routers/context.ts';
import { presentedApiKey } from './api-key-header.ts';
import type { Edge, RequestContext } from './edge.ts';
import { presentedSessionToken, setSessionCookie } from './session-cookie.ts';

/**
 * Builds a procedure's context from a Koa request: a fresh EntityManager, the caller (an API
 * key from `Authorization: Bearer dk_…`, else the user of the `session` cookie; resolved on
 * every request, in one query, so a revoked key or session or a deleted user stops working at
 * once), and sign-in/sign-out on that cookie.
 * The session query is one fixed prepared statement on MikroORM's own pg pool
 * (`domain/prepared-statements.ts`), with nothing for an ORM to build.
 */
export function createRequestContextFactory(orm: MikroORM, services: Services, edge: Edge) {
  const maxAgeSeconds = edge.settings.session.maxAgeMs / 1000;
  return async (ctx: KoaContext): Promise<RequestContext> => {
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
      edge,
      auth,
      requestId: ctx.state.requestId,
      clientAddress: ctx.ip,
      operator: false,
      session: new CookieSession(ctx, em, presented, maxAgeSeconds),
      accessDecisions: new Map(),
    };
  };
}

/**
 * Sign-in and sign-out on the `session` cookie of one request. A class, not an object literal
 * with a getter: a literal's getter is a new closure per request, held by an accessor pair that
 * V8 allocates in old space, so the whole finished request stayed referenced from old space and
 * was copied by every young-generation collection until the next full one (measured: ~6 MB
 * promoted per collection under load, 7 ms pauses; `docs/decisions.md`, "Where the tail came
 * from").
 */
class CookieSession implements SessionControl {
  readonly #ctx: KoaContext;
  readonly #em: EntityManager;
  readonly #presented: string | undefined;
  readonly #maxAgeSeconds: number;

  constructor(ctx: KoaContext, em: EntityManager, presented: string | undefined, maxAgeSeconds: number) {
    this.#ctx = ctx;
    this.#em = em;
    this.#presented = presented;
    this.#maxAgeSeconds = maxAgeSeconds;
  }

  /** Computed only when asked for (a password change), not on every request. */
  get tokenHash(): string | null {
    return this.#presented ? hashSessionToken(this.#presented) : null;
  }

  async signIn(userId: string): Promise<void> {
    // A new token at each sign-in, and the one presented is dropped: a token planted
    // before login (session fixation) is worth nothing after it.
    const token = await createSession(this.#em, userId, this.#maxAgeSeconds);
    if (this.#presented) await revokeSession(this.#em, this.#presented);
    setSessionCookie(this.#ctx, token, this.#maxAgeSeconds);
  }

  async signOut(): Promise<void> {
    // Only the session this request presents: nobody can sign out someone else's.
    if (this.#presented) await revokeSession(this.#em, this.#presented);
    setSessionCookie(this.#ctx, null, this.#maxAgeSeconds);
  }
}
