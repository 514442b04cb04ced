import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  contentType: string | null;
}

/**
 * Where files live. Keys are `org/<organizationId>/…`; callers never sign outside their
 * organization's namespace (see `domain/object-keys.ts`). Two drivers: local disk (the
 * service answers its own signed addresses) and S3 (AWS or S3-compatible).
 */
export interface ObjectStorage {
  readonly driver: 'local' | 's3';
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Stores the file at `filePath` under `key`, streamed from disk (an export may be large). */
  putFile(key: string, filePath: string, contentType: string): Promise<void>;
  /**
   * Copies the object to the local file `filePath`, streamed, reading at most `maxBytes`: `missing`
   * when there is no such object, `too-large` past `maxBytes` (then nothing is left at `filePath`).
   */
  download(key: string, filePath: string, maxBytes: number): Promise<DownloadOutcome>;
  head(key: string): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  /** An address that accepts one HTTP PUT of this key with this Content-Type until it expires. */
  signedUploadUrl(
    key: string,
    options: { contentType: string; maxBytes: number; expiresInSeconds: number },
  ): Promise<string>;
  /**
   * Makes what was PUT through `signedUploadUrl(key)` final once it has `expectedSize` bytes:
   * from then on no upload address can change it. An object of another size is deleted, so
   * nothing oversized stays behind and the client may upload again.
   */
  finishUpload(key: string, expectedSize: number): Promise<FinishedUpload>;
  /**
   * An address that answers GET with the object until it expires. `contentType`: what the
   * caller knows the object to be; only a passive type (`INLINE_TYPES`) may be shown inline
   * where the store cannot sandbox it (S3: anything else is served as an attachment).
   */
  signedDownloadUrl(key: string, expiresInSeconds: number, contentType?: string): Promise<string>;
  /** Throws when the store cannot be reached (readiness). */
  check(): Promise<void>;
}

/** What the local driver's own HTTP routes need from it. */
export interface LocalObjectAccess {
  verify(
    method: 'GET' | 'PUT',
    key: string,
    query: Record<string, string | undefined>,
    contentType?: string,
  ): SignedRequest;
  /**
   * Writes an uploaded object, only if none exists under `key` (`code: 'EXISTS'` otherwise;
   * `code: 'TOO_LARGE'` past `maxBytes`). A failed write leaves nothing behind.
   */
  write(key: string, body: Readable, contentType: string, maxBytes: number): Promise<number>;
  read(key: string): Promise<{ stream: Readable; size: number; contentType: string } | null>;
}

export type DownloadOutcome = { ok: true; size: number } | { ok: false; reason: 'missing' | 'too-large' };

export type FinishedUpload =
  | { ok: true; object: StoredObject }
  | { ok: false; reason: 'missing' }
  | { ok: false; reason: 'size'; size: number }
  /** Replaced while it was being finished: finishing again takes the new one. */
  | { ok: false; reason: 'changed' };

/** Types that cannot run script when a browser opens them: the only ones served inline without a sandbox. */
export const INLINE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
]);

export interface SignedRequest {
  ok: boolean;
  /** Why it was refused (expired, tampered, wrong content type). */
  reason?: string;
  maxBytes?: number;
}

/** Keys are path-like: segments of safe characters, never `.` or `..`. */
export function isSafeKey(key: string): boolean {
  return (
    key.length > 0 &&
    key.length <= 1024 &&
    key
      .split('/')
      .every((segment) => /^[A-Za-z0-9._-]+$/.test(segment) && segment !== '.' && segment !== '..')
  );
}
