import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretBox } from '../domain/ports/secret-box.ts';

/**
 * Seals with AES-256-GCM under `ENCRYPTION_KEY`. A sealed value reads `v1.<keyId>.<iv>.<ciphertext+tag>`
 * (base64url parts); `keyId` names the key that sealed it, so a new key can take over while values
 * sealed under the old one (`ENCRYPTION_KEYS_PREVIOUS`) still open.
 */
const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

/**
 * Any secret string of at least 32 characters becomes a 256-bit key through HKDF, and an 8-character
 * identifier through HMAC: the identifier tells keys apart and reveals nothing about them.
 */
function deriveKey(secret: string): Key {
  const bytes = Buffer.from(hkdfSync('sha256', secret, 'deck-service', 'secrets at rest, AES-256-GCM', 32));
  const id = createHmac('sha256', bytes).update('key identifier').digest('base64url').slice(0, 8);
  return { id, bytes };
}

export function createSecretBox(currentKey: string, previousKeys: readonly string[] = []): SecretBox {
  const current = deriveKey(currentKey);
  const keys = new Map<string, Key>([current, ...previousKeys.map(deriveKey)].map((key) => [key.id, key]));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.bytes, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [FORMAT, current.id, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [format, keyId, iv, body, ...rest] = sealed.split('.');
      if (format !== FORMAT || !keyId || !iv || !body || rest.length > 0) {
        throw new Error('not a sealed secret');
      }
      const key = keys.get(keyId);
      // The identifier is not secret; naming it tells the operator which key to bring back.
      if (!key)
        throw new Error(`sealed under key ${keyId}, which is neither ENCRYPTION_KEY nor a previous key`);
      const bytes = Buffer.from(body, 'base64url');
      if (bytes.length < TAG_BYTES) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error(
          `sealed secret does not open under key ${keyId} (altered, or sealed for another row)`,
        );
      }
    },
  };
}
