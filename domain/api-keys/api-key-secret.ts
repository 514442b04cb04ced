import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/callers.ts';

export const API_KEY_SECRET_PREFIX = 'dk_';
const SECRET_BYTES = 32;
/** `dk_` and 32 bytes in base64url without padding (43 characters): fixed length, linear check. */
const SECRET_PATTERN = /^dk_[A-Za-z0-9_-]{43}$/;
/** How many characters after `dk_` a list shows to recognise a key. */
const PREFIX_LENGTH = 8;

export interface NewApiKeySecret {
  /** Shown once, in the answer that creates the key; never stored. */
  secret: string;
  secretHash: string;
  prefix: string;
}

export function newApiKeySecret(): NewApiKeySecret {
  const secret = API_KEY_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  return {
    secret,
    secretHash: hashSecret(secret),
    prefix: secret.slice(API_KEY_SECRET_PREFIX.length, API_KEY_SECRET_PREFIX.length + PREFIX_LENGTH),
  };
}

/** True when `value` has the shape of a key's secret (anything else is refused unlooked-up). */
export function isApiKeySecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}
