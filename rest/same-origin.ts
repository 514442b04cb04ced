import type { Context as KoaContext, Middleware } from 'koa';
import { problem, sendProblem } from './problem.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard. A browser attaches the `session` cookie to a form or
 * `fetch` another site sends here; a state-changing request (any method but GET, HEAD,
 * OPTIONS) is refused with 403 when the browser says it did not come from this service's
 * own pages:
 * - `Sec-Fetch-Site: cross-site`, and `same-site` too (a sibling subdomain is another
 *   party; this service answers no CORS, so its own pages are always `same-origin`);
 * - an `Origin` that is neither the request's own origin (scheme and Host, which honour
 *   TRUST_PROXY) nor PUBLIC_URL's (`Origin: null` counts as foreign).
 * Requests with neither header (curl, servers, scripts) pass: they carry no victim's cookie.
 * `exempt` paths (the signed `/storage` addresses) carry their permission in the signature.
 */
export function sameOrigin(options: { publicUrl?: string; exempt?: (path: string) => boolean }): Middleware {
  const publicOrigin = options.publicUrl ? originOf(options.publicUrl) : undefined;
  return async (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method) || options.exempt?.(ctx.path)) return next();
    const refusal = crossSiteReason(ctx, publicOrigin);
    if (refusal) return sendProblem(ctx, problem(403, refusal));
    return next();
  };
}

function crossSiteReason(ctx: KoaContext, publicOrigin: string | undefined): string | undefined {
  const fetchSite = ctx.get('sec-fetch-site').toLowerCase();
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
    return `Refused: a ${ctx.method} must come from this service's own pages (Sec-Fetch-Site: ${fetchSite})`;
  }
  const origin = ctx.get('origin');
  if (origin !== '') {
    const presented = originOf(origin);
    // Not `ctx.origin`: in Koa 3 that is the request's Origin header itself.
    const own = originOf(`${ctx.protocol}://${ctx.host}`);
    if (presented === undefined || (presented !== own && presented !== publicOrigin)) {
      return `Refused: a ${ctx.method} must come from this service's own origin, not ${origin.slice(0, 200)}`;
    }
  }
  return undefined;
}

/** `scheme://host[:port]`, normalised (lower case, default port dropped); undefined if not a URL origin. */
function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
