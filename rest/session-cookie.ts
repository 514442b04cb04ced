import type { Context as KoaContext } from 'koa';

/** The cookie that carries a session's token (domain/auth/sessions.ts keeps only its hash). */
export const SESSION_COOKIE = 'session';

// 32 bytes in base64url without padding are exactly 43 characters of this alphabet.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The token the request presents, when it has the shape of one (anything else is no session). */
export function presentedSessionToken(ctx: KoaContext): string | undefined {
  const value = ctx.cookies.get(SESSION_COOKIE, { signed: false });
  return value && TOKEN_PATTERN.test(value) ? value : undefined;
}

/**
 * Sets (or with `token: null` clears) the `session` cookie. Written by hand rather than with
 * `ctx.cookies` so that it carries `Max-Age` (which follows each renewal) and replaces any
 * `session` cookie already set on this response instead of adding a second one.
 */
export function setSessionCookie(ctx: KoaContext, token: string | null, maxAgeSeconds: number): void {
  const attributes = [
    `${SESSION_COOKIE}=${token ?? ''}`,
    'Path=/',
    token ? `Max-Age=${Math.floor(maxAgeSeconds)}` : 'Max-Age=0',
    ...(token ? [] : ['Expires=Thu, 01 Jan 1970 00:00:00 GMT']),
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
