import type { Context as KoaContext } from 'koa';
import { isApiKeySecret } from '../domain/api-keys/api-key-secret.ts';

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
