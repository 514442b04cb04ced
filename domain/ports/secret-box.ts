/**
 * Encrypts secrets the service must be able to read back (webhook signing secrets) before they
 * are stored: AES-256-GCM under `ENCRYPTION_KEY`. A sealed value reads
 * `v1.<keyId>.<iv>.<ciphertext+tag>` (base64url parts); `keyId` names the key that sealed it,
 * so a new key can take over while values sealed under the old one (listed in
 * `ENCRYPTION_KEYS_PREVIOUS`) still open. `context` is authenticated, not stored: a value sealed
 * for one row does not open for another (a copied column is useless).
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the value was not sealed by a known key for this context. */
  open(sealed: string, context: string): string;
}
