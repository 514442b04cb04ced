import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  isSafeKey,
  type LocalObjectAccess,
  type ObjectStorage,
  type SignedRequest,
} from '../../domain/ports/object-storage.ts';
import { newId } from '../../entities/ids.ts';

const MAX_EXPIRY_MS = 7 * 24 * 3600 * 1000;

/**
 * Objects on local disk under `<dataDir>/objects`, with their content type beside them in
 * `<dataDir>/object-meta`. Signed addresses point at this service (`/storage/<key>`) and
 * carry an HMAC over method, key, expiry, content type and size limit, as a disk service
 * stands in for S3 in other frameworks: the same client flow, no cloud account. The HMAC
 * key comes from `STORAGE_SIGNING_SECRET` (app/secrets.ts), used for nothing else.
 * Uploads through a signed address are create-only: an existing object is never replaced.
 */
export function createLocalStorage(options: {
  dataDir: string;
  secret: string;
  baseUrl: () => string;
}): ObjectStorage & LocalObjectAccess {
  const root = path.join(options.dataDir, 'objects');
  const metaRoot = path.join(options.dataDir, 'object-meta');
  const key = Buffer.from(
    hkdfSync('sha256', options.secret, 'deck-service', 'local object storage signatures', 32),
  );

  const fileOf = (objectKey: string) => {
    const data = path.join(root, objectKey);
    // isSafeKey refuses `..` segments; the prefix check is a second line against traversal.
    if (!isSafeKey(objectKey) || !data.startsWith(`${root}${path.sep}`)) throw new Error('unsafe object key');
    return { data, meta: path.join(metaRoot, `${objectKey}.json`) };
  };
  // JSON: an unambiguous encoding of the fields, whatever characters a query value holds.
  const sign = (fields: string[]) =>
    createHmac('sha256', key).update(JSON.stringify(fields)).digest('base64url');
  const signedUrl = (
    method: 'GET' | 'PUT',
    objectKey: string,
    expiresInSeconds: number,
    contentType = '',
    maxBytes = '',
  ) => {
    const expires = String(Math.floor(Date.now() / 1000) + expiresInSeconds);
    const query = new URLSearchParams({
      method,
      expires,
      ...(contentType ? { contentType } : {}),
      ...(maxBytes ? { maxBytes } : {}),
    });
    query.set('signature', sign([method, objectKey, expires, contentType, maxBytes]));
    return `${options.baseUrl()}/storage/${objectKey}?${query}`;
  };
  const writeMeta = async (objectKey: string, contentType: string) => {
    const { meta } = fileOf(objectKey);
    await mkdir(path.dirname(meta), { recursive: true });
    const temporary = `${meta}.${newId()}.part`;
    await writeFile(temporary, JSON.stringify({ contentType }));
    await rename(temporary, meta);
  };

  return {
    driver: 'local',
    async put(objectKey, body, contentType) {
      const { data } = fileOf(objectKey);
      await mkdir(path.dirname(data), { recursive: true });
      const temporary = `${data}.${newId()}.part`;
      await writeFile(temporary, body);
      await rename(temporary, data);
      await writeMeta(objectKey, contentType);
    },
    async putFile(objectKey, filePath, contentType) {
      const { data } = fileOf(objectKey);
      await mkdir(path.dirname(data), { recursive: true });
      const temporary = `${data}.${newId()}.part`;
      try {
        await copyFile(filePath, temporary);
        await rename(temporary, data);
      } finally {
        await rm(temporary, { force: true });
      }
      await writeMeta(objectKey, contentType);
    },
    async download(objectKey, filePath, maxBytes) {
      const { data } = fileOf(objectKey);
      try {
        await pipeline(createReadStream(data), limitedTo(maxBytes), createWriteStream(filePath));
      } catch (error) {
        await rm(filePath, { force: true });
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return { ok: false, reason: 'missing' };
        if (code === 'TOO_LARGE') return { ok: false, reason: 'too-large' };
        throw error;
      }
      return { ok: true, size: (await stat(filePath)).size };
    },
    async head(objectKey) {
      const { data, meta } = fileOf(objectKey);
      try {
        const [info, metaText] = await Promise.all([stat(data), readFile(meta, 'utf8').catch(() => '{}')]);
        return {
          size: info.size,
          contentType: (JSON.parse(metaText) as { contentType?: string }).contentType ?? null,
        };
      } catch {
        return null;
      }
    },
    async delete(objectKey) {
      const { data, meta } = fileOf(objectKey);
      await Promise.all([rm(data, { force: true }), rm(meta, { force: true })]);
    },
    async signedUploadUrl(objectKey, { contentType, maxBytes, expiresInSeconds }) {
      fileOf(objectKey);
      return signedUrl('PUT', objectKey, expiresInSeconds, contentType, String(maxBytes));
    },
    async finishUpload(objectKey, expectedSize) {
      // Immutable already: write() never replaces an object, so only size is left to check.
      const stored = await this.head(objectKey);
      if (!stored) return { ok: false, reason: 'missing' };
      if (stored.size !== expectedSize) {
        await this.delete(objectKey);
        return { ok: false, reason: 'size', size: stored.size };
      }
      return { ok: true, object: stored };
    },
    async signedDownloadUrl(objectKey, expiresInSeconds) {
      // Served with `Content-Security-Policy: sandbox` whatever the type (rest/storage-routes.ts).
      fileOf(objectKey);
      return signedUrl('GET', objectKey, expiresInSeconds);
    },
    async check() {
      await mkdir(root, { recursive: true });
    },

    verify(method, objectKey, query, contentType): SignedRequest {
      if (
        !isSafeKey(objectKey) ||
        query.method !== method ||
        !query.signature ||
        !/^\d{1,12}$/.test(query.expires ?? '') ||
        (method === 'PUT' && !/^\d{1,15}$/.test(query.maxBytes ?? ''))
      ) {
        return { ok: false, reason: 'This address is not a valid signed address' };
      }
      const expected = sign([
        method,
        objectKey,
        query.expires!,
        query.contentType ?? '',
        query.maxBytes ?? '',
      ]);
      const given = Buffer.from(query.signature);
      if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) {
        return { ok: false, reason: 'The signature does not match this address' };
      }
      if (Number(query.expires) * 1000 < Date.now())
        return { ok: false, reason: 'This signed address has expired' };
      // Addresses are signed for at most UPLOAD/DOWNLOAD_URL_EXPIRES_SECONDS (≤ 7 days).
      if (Number(query.expires) * 1000 > Date.now() + MAX_EXPIRY_MS) {
        return { ok: false, reason: 'This address is not a valid signed address' };
      }
      if (method === 'PUT' && (contentType ?? '').split(';')[0]!.trim().toLowerCase() !== query.contentType) {
        return { ok: false, reason: `The upload must be sent with Content-Type: ${query.contentType}` };
      }
      return { ok: true, maxBytes: query.maxBytes ? Number(query.maxBytes) : undefined };
    },
    async write(objectKey, body: Readable, contentType, maxBytes) {
      const { data } = fileOf(objectKey);
      await mkdir(path.dirname(data), { recursive: true });
      const temporary = `${data}.${newId()}.part`;
      let size = 0;
      try {
        await pipeline(
          body,
          limitedTo(maxBytes, (bytes) => {
            size = bytes;
          }),
          createWriteStream(temporary, { flags: 'wx' }),
        );
        // link() fails if the name exists: of two uploads of one key, exactly one wins, and
        // a completed object is never replaced (rename would overwrite it).
        await link(temporary, data);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
          throw Object.assign(new Error('already uploaded'), { code: 'EXISTS' });
        }
        throw error;
      } finally {
        await rm(temporary, { force: true });
      }
      await writeMeta(objectKey, contentType);
      return size;
    },
    async read(objectKey) {
      const info = await this.head(objectKey);
      if (!info) return null;
      return {
        stream: createReadStream(fileOf(objectKey).data),
        size: info.size,
        contentType: info.contentType ?? 'application/octet-stream',
      };
    },
  };
}

/**
 * A pipeline step that passes at most `maxBytes` through and fails (`code: 'TOO_LARGE'`) past
 * them; `counted` hears the running total.
 */
export function limitedTo(maxBytes: number, counted?: (bytes: number) => void) {
  return async function* limit(source: AsyncIterable<Buffer>) {
    let size = 0;
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes) throw Object.assign(new Error('too large'), { code: 'TOO_LARGE' });
      counted?.(size);
      yield chunk;
    }
  };
}
