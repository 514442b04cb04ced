import type { MikroORM } from '@mikro-orm/postgresql';
import type Koa from 'koa';
import type { Context as KoaContext, Middleware } from 'koa';
import createKoaSession from 'koa-session';
import { isApiKeySecret } from '../domain/api-keys/api-key-secret.ts';
import {
  authenticateApiKey,
  authenticateSession,
  createSession,
  hashSecret,
  newSessionToken,
  revokeSession,
} from '../domain/auth/callers.ts';
import type { Auth } from '../domain/context.ts';
import { preparedQueries } from '../domain/prepared-statements.ts';
import type { Services } from '../domain/services.ts';
import type { SessionControl } from '../routers/context.ts';
import type { Edge, RequestContext } from './edge.ts';

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
      liveEvents: edge.liveEvents,
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
    return token ? hashSecret(token) : null;
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

/** The cookie that carries a session's token (domain/auth/callers.ts keeps only its hash). */
export const SESSION_COOKIE = 'session';

// 32 bytes in base64url without padding are exactly 43 characters of this alphabet.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What the session store found or stored for this request (on `ctx.state`). */
export interface SessionState {
  /** The token whose row this request holds: the one presented and found, or the one signed in. */
  sessionToken?: string;
  /** The caller the presented token signs in (session → user → organization, one statement). */
  sessionAuth?: Auth;
  /** The lookup renewed the row: the cookie goes out again with the whole lifetime. */
  sessionRenewed?: boolean;
  /** The lookup failed (database down): thrown where the context is made, in each transport's shape. */
  sessionError?: unknown;
}

/** Paths whose requests are answered by procedures: only these read the `session` cookie. */
function usesSessions(path: string): boolean {
  return path.startsWith('/api/') || path === '/trpc' || path.startsWith('/trpc/');
}

/**
 * The `session` cookie's life (read, set, renew, clear, its options) by koa-session, with an
 * external store in `domain/auth/callers.ts` terms: the store keeps only the token's SHA-256,
 * and its `get` is the one prepared statement session → user → organization, which also renews
 * the row at most once an hour. What koa-session cannot do itself (its renewal is every response
 * or the last half of the lifetime; its cookie has Expires, not Max-Age) is done here and is
 * recorded with its probes in docs/decisions/045-sessions-with-koa-session.md.
 */
export function sessionCookies(app: Koa, orm: MikroORM, maxAgeMs: number): Middleware {
  const maxAgeSeconds = maxAgeMs / 1000;
  const sessions = createKoaSession(
    {
      key: SESSION_COOKIE,
      maxAge: maxAgeMs,
      // No signing keys and no `session.sig`: the token's entropy is the protection (api.md).
      signed: false,
      httpOnly: true,
      sameSite: 'lax',
      // A later write of the cookie on the same response replaces the earlier one.
      overwrite: true,
      // The renewal is the store's (at most once an hour), not koa-session's.
      rolling: false,
      renew: false,
      genid: newSessionToken,
      externalKey: {
        // With an Authorization header the cookie is not read at all: the key decides alone.
        // Anything that is not 43 base64url characters is no session, without a query.
        get: (ctx: KoaContext) => {
          if (presentedApiKey(ctx).kind !== 'none') return '';
          const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
          return value && TOKEN_PATTERN.test(value) ? value : '';
        },
        // Written with Max-Age (the `cookies` module koa-session uses writes Expires only).
        set: (ctx: KoaContext, token: string) => setSessionCookie(ctx, token, maxAgeSeconds),
      },
      store: {
        async get(token: string, _maxAge: number, { ctx }: { ctx: KoaContext }) {
          const state = ctx.state as SessionState;
          let found: Awaited<ReturnType<typeof authenticateSession>>;
          try {
            found = await authenticateSession(await preparedQueries(orm.em), token, maxAgeSeconds);
          } catch (error) {
            state.sessionError = error;
            return null;
          }
          if (!found) return null;
          state.sessionToken = token;
          state.sessionAuth = found.auth;
          state.sessionRenewed = found.renewed;
          // koa-session's own data: only who it is (the row is the truth, read on every request).
          return { userId: found.auth.userId };
        },
        async set(token: string, data: { userId?: string }, _maxAge: number, { ctx }: { ctx: KoaContext }) {
          const state = ctx.state as SessionState;
          // The row this request already holds (found, renewed or just stored): only the cookie
          // is written again, by koa-session.
          if (token === state.sessionToken || !data.userId) return;
          await createSession(orm.em.fork(), data.userId, token, maxAgeSeconds);
          state.sessionToken = token;
        },
        async destroy(token: string, { ctx }: { ctx: KoaContext }) {
          const state = ctx.state as SessionState;
          // Only a session this request holds; koa-session's fresh ids were never stored.
          if (token !== state.sessionToken) return;
          state.sessionToken = undefined;
          await revokeSession(orm.em.fork(), token);
        },
      },
    } as never,
    app,
  ) as Middleware;
  const afterLookup = (ctx: KoaContext, next: () => Promise<unknown>) => {
    // The row was renewed: koa-session sends the cookie again, Max-Age the whole lifetime.
    if ((ctx.state as SessionState).sessionRenewed) sessionOf(ctx).maxAge = maxAgeMs;
    return next();
  };
  return (ctx, next) => (usesSessions(ctx.path) ? sessions(ctx, () => afterLookup(ctx, next)) : next());
}

/** koa-session's session object of this request (its `regenerate`, `maxAge`). */
export interface KoaSession {
  userId?: string;
  maxAge: number;
  regenerate(): Promise<void>;
}

export function sessionOf(ctx: KoaContext): KoaSession {
  return (ctx as unknown as { session: KoaSession }).session;
}

/** Ends the request's session: koa-session destroys it in the store and clears the cookie. */
export function endSession(ctx: KoaContext): void {
  (ctx as unknown as { session: null }).session = null;
}

/**
 * Sets the `session` cookie. Written by hand rather than with `ctx.cookies` so that it carries
 * `Max-Age` (which follows each renewal) and replaces any `session` cookie already set on this
 * response instead of adding a second one.
 */
function setSessionCookie(ctx: KoaContext, token: string, maxAgeSeconds: number): void {
  const attributes = [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${Math.floor(maxAgeSeconds)}`,
    'HttpOnly',
    'SameSite=Lax',
    // Whenever the client reached us over https (behind a proxy: TRUST_PROXY).
    ...(ctx.secure ? ['Secure'] : []),
  ];
  const existing = ctx.response.get('Set-Cookie') as unknown as string[] | string;
  const others = (Array.isArray(existing) ? existing : existing ? [existing] : []).filter(
    (cookie) => !cookie.startsWith(`${SESSION_COOKIE}=`),
  );
  ctx.set('Set-Cookie', [...others, attributes.join('; ')]);
}

/**
 * What the `Authorization` header presents: absent (`none`: the cookie decides), a key's
 * secret, or anything else (`invalid`: the caller meant a key and has none that works, so
 * it is not signed in, whatever cookie it also sends — see docs/decisions/005-api-keys.md).
 */
export function presentedApiKey(
  ctx: KoaContext,
): { kind: 'none' } | { kind: 'invalid' } | { kind: 'key'; secret: string } {
  const header = ctx.get('authorization');
  if (!header) return { kind: 'none' };
  // "Bearer" is case-insensitive (RFC 9110 §11.1); one or more spaces, then the token.
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return { kind: 'invalid' };
  const secret = header.slice(space + 1).trim();
  return isApiKeySecret(secret) ? { kind: 'key', secret } : { kind: 'invalid' };
}
