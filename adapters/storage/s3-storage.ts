import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { INLINE_TYPES, type ObjectStorage } from '../../domain/ports/object-storage.ts';
import { limitedTo } from './local-storage.ts';

export interface S3Settings {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/**
 * AWS S3 or an S3-compatible store. Uploads and downloads go straight to the store through
 * presigned URLs. Checksums only when required: S3-compatible stores reject or mishandle
 * the SDK's default checksum parameters on presigned requests.
 *
 * A presigned PUT can be replayed until it expires, and conditional PUTs (`If-None-Match: *`)
 * are not supported everywhere (Swift's s3api answers 501). So clients upload to a staging
 * key, `uploads/<key>`, and `finishUpload` copies the object to `<key>`, for which no upload
 * address is ever signed: a finished object cannot be changed by any client.
 */
export function createS3Storage(settings: S3Settings): ObjectStorage {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const stagingKeyOf = (Key: string) => `uploads/${Key}`;
  const headObject = async (Key: string) => {
    try {
      return await client.send(new HeadObjectCommand({ Bucket, Key }));
    } catch (error) {
      if (
        error instanceof NotFound ||
        (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
      ) {
        return null;
      }
      throw error;
    }
  };
  const deleteObject = (Key: string) => client.send(new DeleteObjectCommand({ Bucket, Key }));
  return {
    driver: 's3',
    async put(Key, Body, ContentType) {
      await client.send(new PutObjectCommand({ Bucket, Key, Body, ContentType }));
    },
    async putFile(Key, filePath, ContentType) {
      // A known length: the SDK streams the file in one PUT (up to S3's 5 GB per object).
      const { size } = await stat(filePath);
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: createReadStream(filePath),
          ContentLength: size,
          ContentType,
        }),
      );
    },
    async download(Key, filePath, maxBytes) {
      let body: Readable;
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key }));
        if ((answer.ContentLength ?? 0) > maxBytes) {
          (answer.Body as Readable | undefined)?.destroy();
          return { ok: false, reason: 'too-large' };
        }
        body = answer.Body as Readable;
      } catch (error) {
        const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
        if (status === 404) return { ok: false, reason: 'missing' };
        throw error;
      }
      try {
        await pipeline(body, limitedTo(maxBytes), createWriteStream(filePath));
      } catch (error) {
        await rm(filePath, { force: true });
        if ((error as { code?: string }).code === 'TOO_LARGE') return { ok: false, reason: 'too-large' };
        throw error;
      }
      return { ok: true, size: (await stat(filePath)).size };
    },
    async head(Key) {
      const head = await headObject(Key);
      return head ? { size: head.ContentLength ?? 0, contentType: head.ContentType ?? null } : null;
    },
    async delete(Key) {
      // The staging copy too: a replayed upload address may have left one behind.
      await Promise.all([deleteObject(Key), deleteObject(stagingKeyOf(Key))]);
    },
    async signedUploadUrl(Key, { contentType, maxBytes, expiresInSeconds }) {
      // Content-Type and Content-Length are signed headers: the PUT must carry exactly that
      // type and exactly the declared size, or the store refuses the signature (403).
      const command = new PutObjectCommand({
        Bucket,
        Key: stagingKeyOf(Key),
        ContentType: contentType,
        ContentLength: maxBytes,
      });
      return getSignedUrl(client, command, {
        expiresIn: expiresInSeconds,
        signableHeaders: new Set(['content-type', 'content-length']),
      });
    },
    async finishUpload(Key, expectedSize) {
      const finished = await headObject(Key);
      // Finished before (a retried complete whose first answer was lost).
      if (finished)
        return {
          ok: true,
          object: { size: finished.ContentLength ?? 0, contentType: finished.ContentType ?? null },
        };
      const stagingKey = stagingKeyOf(Key);
      const staged = await headObject(stagingKey);
      if (!staged) return { ok: false, reason: 'missing' };
      const size = staged.ContentLength ?? 0;
      if (size !== expectedSize) {
        await deleteObject(stagingKey);
        return { ok: false, reason: 'size', size };
      }
      try {
        // If-Match: the copy is of the object just measured, not of a replacement PUT since.
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key,
            CopySource: `${Bucket}/${stagingKey}`,
            CopySourceIfMatch: staged.ETag,
            MetadataDirective: 'COPY',
          }),
        );
      } catch (error) {
        const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
        if (status !== 404 && status !== 412) throw error;
        // 404: a concurrent complete copied and removed the staging object first.
        const done = await headObject(Key);
        if (done?.ContentLength === expectedSize) {
          return { ok: true, object: { size: expectedSize, contentType: done.ContentType ?? null } };
        }
        return { ok: false, reason: 'changed' };
      }
      await deleteObject(stagingKey);
      const copied = await headObject(Key);
      if (!copied || copied.ContentLength !== expectedSize) {
        await deleteObject(Key);
        return copied
          ? { ok: false, reason: 'size', size: copied.ContentLength ?? 0 }
          : { ok: false, reason: 'missing' };
      }
      return { ok: true, object: { size: expectedSize, contentType: copied.ContentType ?? null } };
    },
    async signedDownloadUrl(Key, expiresInSeconds, contentType) {
      // A presigned GET cannot add Content-Security-Policy or nosniff. So only a passive type
      // the caller vouches for is shown inline (and served as that type); anything else, SVG
      // and HTML included, is an attachment: a browser opening it downloads it and runs
      // nothing (images and audio still load in <img> and <audio>).
      const inline = contentType !== undefined && INLINE_TYPES.has(contentType);
      const filename = Key.slice(Key.lastIndexOf('/') + 1);
      return getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket,
          Key,
          ResponseContentDisposition: inline ? 'inline' : `attachment; filename="${filename}"`,
          ...(inline ? { ResponseContentType: contentType } : {}),
        }),
        { expiresIn: expiresInSeconds },
      );
    },
    async check() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },
  };
}
