import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage, type S3Settings } from '../server/storage/s3-storage.ts';
import { png } from './helpers/files.ts';
import { expectProblem } from './helpers/http-client.ts';
import { startSwiftS3 } from './helpers/swift-s3.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let swift: Awaited<ReturnType<typeof startSwiftS3>>;
let settings: S3Settings;

beforeAll(async () => {
  swift = await startSwiftS3();
  settings = {
    endpoint: swift.endpoint,
    region: 'us-east-1',
    bucket: 'deck-objects',
    accessKeyId: swift.accessKeyId,
    secretAccessKey: swift.secretAccessKey,
    forcePathStyle: true,
  };
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
  });
  await client.send(new CreateBucketCommand({ Bucket: settings.bucket }));
});
afterAll(() => swift?.stop());

describe('the S3 driver against a signature-checking S3 (Swift s3api)', () => {
  it('puts, heads and deletes objects', async () => {
    const storage = createS3Storage(settings);
    await storage.check();
    await storage.put('org/a/one.txt', Buffer.from('hello'), 'text/plain');
    expect(await storage.head('org/a/one.txt')).toEqual({ size: 5, contentType: 'text/plain' });
    expect(await storage.head('org/a/none.txt')).toBeNull();
    await storage.delete('org/a/one.txt');
    expect(await storage.head('org/a/one.txt')).toBeNull();
  });

  it('hands out presigned PUT and GET addresses that the store honours, and refuses when they are altered', async () => {
    const storage = createS3Storage(settings);
    const uploadUrl = await storage.signedUploadUrl('org/a/doc.md', {
      contentType: 'text/markdown',
      maxBytes: 7,
      expiresInSeconds: 60,
    });
    const put = (url: string, type = 'text/markdown') =>
      fetch(url, { method: 'PUT', headers: { 'content-type': type }, body: '# Hello' });
    expect((await put(uploadUrl, 'text/html')).status).toBe(403);
    const tampered = uploadUrl.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_m, c) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
    );
    expect((await put(tampered)).status).toBe(403);
    expect((await put(uploadUrl.replace('org/a/doc.md', 'org/b/doc.md'))).status).toBe(403);
    expect((await put(uploadUrl)).status).toBe(200);
    const download = await fetch(await storage.signedDownloadUrl('org/a/doc.md', 60));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Hello');
  });

  it('is refused with a wrong secret, and an expired address is refused', async () => {
    await expect(
      createS3Storage({ ...settings, secretAccessKey: 'wrong' }).put(
        'org/a/x',
        Buffer.from('x'),
        'text/plain',
      ),
    ).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
    });
    const client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    const expired = await getSignedUrl(
      client,
      new PutObjectCommand({ Bucket: settings.bucket, Key: 'org/a/late.txt' }),
      {
        expiresIn: 60,
        signingDate: new Date(Date.now() - 3600_000),
      },
    );
    expect((await fetch(expired, { method: 'PUT', body: 'late' })).status).toBe(403);
  });
});

describe('the service with STORAGE_DRIVER=s3', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: swift.endpoint,
      S3_REGION: settings.region,
      S3_BUCKET: settings.bucket,
      S3_ACCESS_KEY_ID: settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    });
  });
  afterAll(() => t?.close());

  it('stores images in the bucket, with URLs the store answers', async () => {
    const user = await t.signedInClient();
    const image = (await user.upload('/api/images', { name: 'logo.png', bytes: png(8, 4) })).body;
    expect(image.url.startsWith(`${settings.endpoint}/${settings.bucket}/org/`)).toBe(true);
    const download = await fetch(image.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(png(8, 4))).toBe(true);
    await user.delete(`/api/images/${image.id}`);
    expect(await t.app.services.storage.head(image.objectKey)).toBeNull();
  });

  it('runs the knowledge-base upload through a presigned PUT to the store', async () => {
    const user = await t.signedInClient();
    const init = (
      await user.post('/api/company/kb/documents/upload-init', {
        filename: 'faq.txt',
        contentType: 'text/plain',
        sizeBytes: 12,
      })
    ).body;
    expect(init.uploadUrl).toContain('X-Amz-Signature=');
    expectProblem(await user.post(`/api/company/kb/documents/${init.documentId}/complete`), 409, 'CONFLICT');
    const put = await fetch(init.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'hello, world',
    });
    expect(put.status).toBe(200);
    const completed = await user.post(`/api/company/kb/documents/${init.documentId}/complete`);
    expect(completed.body).toMatchObject({ status: 'uploaded', sizeBytes: 12 });
    expect((await t.client().get('/readyz')).status).toBe(200);
  });
});
