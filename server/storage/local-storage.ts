import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newId } from '../../entities/ids.ts';
import {
  isSafeKey,
  type LocalObjectAccess,
  type ObjectStorage,
  type SignedRequest,
} from './object-storage.ts';

/**
 * Objects on local disk under `<dataDir>/objects`, with their content type beside them in
 * `<dataDir>/object-meta`. Signed addresses point at this service (`/storage/<key>`) and
 * carry an HMAC over method, key, expiry, content type and size limit, as a disk service
 * stands in for S3 in other frameworks: the same client flow, no cloud account.
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
    if (!isSafeKey(objectKey)) throw new Error('unsafe object key');
    return { data: path.join(root, objectKey), meta: path.join(metaRoot, `${objectKey}.json`) };
  };
  const sign = (fields: string[]) => createHmac('sha256', key).update(fields.join('\n')).digest('base64url');
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
    await writeFile(meta, JSON.stringify({ contentType }));
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
    async signedDownloadUrl(objectKey, expiresInSeconds) {
      fileOf(objectKey);
      return signedUrl('GET', objectKey, expiresInSeconds);
    },
    async check() {
      await mkdir(root, { recursive: true });
    },

    verify(method, objectKey, query, contentType): SignedRequest {
      if (!isSafeKey(objectKey) || query.method !== method || !query.signature || !query.expires) {
        return { ok: false, reason: 'This address is not a valid signed address' };
      }
      const expected = sign([
        method,
        objectKey,
        query.expires,
        query.contentType ?? '',
        query.maxBytes ?? '',
      ]);
      const given = Buffer.from(query.signature);
      if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) {
        return { ok: false, reason: 'The signature does not match this address' };
      }
      if (Number(query.expires) * 1000 < Date.now())
        return { ok: false, reason: 'This signed address has expired' };
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
          async function* limit(source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length;
              if (size > maxBytes) throw Object.assign(new Error('too large'), { code: 'TOO_LARGE' });
              yield chunk;
            }
          },
          createWriteStream(temporary),
        );
        await rename(temporary, data);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
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
