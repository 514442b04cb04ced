import { createHash } from 'node:crypto';

/**
 * How a bearer secret (session token, API key) is stored and looked up: its hex SHA-256. The
 * secrets carry 256 random bits, so a plain hash suffices (nothing to brute-force), and a
 * lookup by hash never compares secrets character by character.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
