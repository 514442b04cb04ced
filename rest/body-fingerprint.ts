import { createHmac, hkdfSync } from 'node:crypto';

/** Fingerprints a request's input from its parts (strings or bytes). */
export type BodyFingerprint = (...parts: (string | Uint8Array)[]) => string;

/**
 * HMAC-SHA-256 (hex) of a request's input under a key derived from the service's encryption
 * secret, for comparing a retry with the first request (rest/idempotency.ts). Keyed, not a bare
 * hash: bodies hold passwords (a password change, a new user), and a stored plain SHA-256 of
 * them could be guessed offline. Each part is length-prefixed, so no two inputs collide.
 */
export function createBodyFingerprint(secret: string): BodyFingerprint {
  const key = Buffer.from(hkdfSync('sha256', secret, 'deck-service', 'idempotency body fingerprints', 32));
  return (...parts) => {
    const hmac = createHmac('sha256', key);
    for (const part of parts) {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      hmac.update(`${bytes.length}:`).update(bytes);
    }
    return hmac.digest('hex');
  };
}
