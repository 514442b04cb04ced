import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage, type S3Settings } from '../adapters/storage/s3-storage.ts';
import { startSwiftS3 } from '../scripts/swift-s3.ts';
import { png, svg } from './helpers/files.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

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
  await swift.createBucket(settings.bucket);
});
afterAll(() => swift?.stop());

/** Begins the upload of a 12-byte text file to the knowledge base; its `uploadUrl`, `documentId`, `storageKey`. */
const initTextUpload = async (user: HttpClient, filename: string) =>
  (
    await user.post('/api/company/kb/documents/upload-init', {
      filename,
      contentType: 'text/plain',
      sizeBytes: 12,
    })
  ).body;

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

  it('stores a file from disk, and copies an object to disk, reading at most maxBytes', async () => {
    const storage = createS3Storage(settings);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-s3-files-'));
    try {
      const bytes = Buffer.alloc(300_000, 7);
      await writeFile(path.join(dir, 'deck.mp4'), bytes);
      await storage.putFile('org/a/exports/x-1/deck.mp4', path.join(dir, 'deck.mp4'), 'video/mp4');
      expect(await storage.head('org/a/exports/x-1/deck.mp4')).toEqual({
        size: 300_000,
        contentType: 'video/mp4',
      });
      const copy = path.join(dir, 'copy.mp4');
      expect(await storage.download('org/a/exports/x-1/deck.mp4', copy, 300_000)).toEqual({
        ok: true,
        size: 300_000,
      });
      expect((await readFile(copy)).equals(bytes)).toBe(true);
      const cut = path.join(dir, 'cut.mp4');
      expect(await storage.download('org/a/exports/x-1/deck.mp4', cut, 299_999)).toEqual({
        ok: false,
        reason: 'too-large',
      });
      await expect(stat(cut)).rejects.toThrow();
      expect(await storage.download('org/a/none.mp4', path.join(dir, 'none'), 10)).toEqual({
        ok: false,
        reason: 'missing',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
    expect(await storage.finishUpload('org/a/doc.md', 7)).toEqual({
      ok: true,
      object: { size: 7, contentType: 'text/markdown' },
    });
    const download = await fetch(await storage.signedDownloadUrl('org/a/doc.md', 60));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Hello');
  });

  it('binds the declared size into the presigned PUT: the store refuses any other length', async () => {
    const storage = createS3Storage(settings);
    const uploadUrl = await storage.signedUploadUrl('org/a/sized.txt', {
      contentType: 'text/plain',
      maxBytes: 5,
      expiresInSeconds: 60,
    });
    expect(new URL(uploadUrl).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain(
      'content-length',
    );
    const put = (body: BodyInit, init: RequestInit = {}) =>
      fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body, ...init });
    expect((await put('toolong')).status).toBe(403);
    expect((await put('four')).status).toBe(403);
    // Chunked (no Content-Length at all) does not get round it either.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('x'.repeat(1000)));
        controller.close();
      },
    });
    expect((await put(chunked, { duplex: 'half' } as RequestInit)).status).toBeGreaterThanOrEqual(400);
    expect(await storage.finishUpload('org/a/sized.txt', 5)).toEqual({ ok: false, reason: 'missing' });
    expect((await put('hello')).status).toBe(200);
    expect((await storage.finishUpload('org/a/sized.txt', 5)).ok).toBe(true);
  });

  it('finishes an upload into a key no address can write: a replayed PUT changes nothing', async () => {
    const storage = createS3Storage(settings);
    const key = 'org/a/final.txt';
    const uploadUrl = await storage.signedUploadUrl(key, {
      contentType: 'text/plain',
      maxBytes: 5,
      expiresInSeconds: 60,
    });
    const put = (body: string) =>
      fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body });
    expect((await put('hello')).status).toBe(200);
    expect(await storage.head(key)).toBeNull();
    expect((await storage.finishUpload(key, 5)).ok).toBe(true);
    expect(await storage.head(`uploads/${key}`)).toBeNull();
    expect((await put('HELLO')).status).toBe(200);
    expect((await storage.finishUpload(key, 5)).ok).toBe(true);
    expect(await (await fetch(await storage.signedDownloadUrl(key, 60))).text()).toBe('hello');
    await storage.delete(key);
    expect(await storage.head(key)).toBeNull();
    expect(await storage.head(`uploads/${key}`)).toBeNull();
  });

  it('deletes a staged object of the wrong size when finishing, leaving nothing', async () => {
    const storage = createS3Storage(settings);
    // As a store that did not check the signed length would have left it.
    await storage.put('uploads/org/a/wrong.txt', Buffer.from('123'), 'text/plain');
    expect(await storage.finishUpload('org/a/wrong.txt', 5)).toEqual({ ok: false, reason: 'size', size: 3 });
    expect(await storage.head('uploads/org/a/wrong.txt')).toBeNull();
    expect(await storage.head('org/a/wrong.txt')).toBeNull();
  });

  it('serves only passive types inline; SVG, HTML and unknown types as attachments', async () => {
    const storage = createS3Storage(settings);
    await storage.put(
      'org/a/pic.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml',
    );
    await storage.put('org/a/pic.png', png(2, 2), 'image/png');
    const svg = await fetch(await storage.signedDownloadUrl('org/a/pic.svg', 60, 'image/svg+xml'));
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-disposition')).toBe('attachment; filename="pic.svg"');
    const unknown = await fetch(await storage.signedDownloadUrl('org/a/pic.svg', 60));
    expect(unknown.headers.get('content-disposition')).toBe('attachment; filename="pic.svg"');
    // A passive type claimed for active content: served as that type, which runs nothing.
    const claimed = await fetch(await storage.signedDownloadUrl('org/a/pic.svg', 60, 'image/png'));
    expect(claimed.headers.get('content-type')).toBe('image/png');
    const picture = await fetch(await storage.signedDownloadUrl('org/a/pic.png', 60, 'image/png'));
    expect(picture.headers.get('content-disposition')).toBe('inline');
    expect(picture.headers.get('content-type')).toBe('image/png');
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

  it('copies an export’s objects from the bucket, and names one that is missing', async () => {
    const user = await t.signedInClient();
    const image = (await user.upload('/api/images', { name: 'hero.png', bytes: png(8, 4) })).body;
    const deckId = (await user.post('/api/decks', { name: 'On S3' })).body.id;
    const shown = await user.post(`/api/decks/${deckId}/slides`, {
      title: 'Shown',
      heroImg: image.objectKey,
    });
    const gone = await user.post(`/api/decks/${deckId}/slides`, { title: 'Gone', heroImg: image.objectKey });
    await t.app.database.orm.em
      .getConnection()
      .execute('update slide set hero_img = ? where id = ?', [
        `org/${user.organizationId}/images/gone/x.png`,
        gone.body.id,
      ]);
    const created = (await user.post(`/api/decks/${deckId}/exports`, { format: 'pdf' })).body;
    const ended = await eventually(async () => {
      const answer = (await user.get(`/api/exports/${created.id}`)).body;
      return ['completed', 'failed'].includes(answer.status) && answer;
    }, 60_000);
    const images = ended.warnings.filter((warning: string) => warning.includes('’s image'));
    expect(images).toEqual([`Slide ${gone.body.slideId}’s image: left out (its object is missing)`]);
    expect(shown.status).toBe(201);
  });

  it('serves SVG images as attachments and PNG images inline', async () => {
    const user = await t.signedInClient();
    const vector = (await user.upload('/api/images', { name: 'v.svg', bytes: svg(5, 5) })).body;
    const picture = (await user.upload('/api/images', { name: 'p.png', bytes: png(2, 2) })).body;
    const vectorDownload = await fetch(vector.url);
    expect(vectorDownload.status).toBe(200);
    expect(vectorDownload.headers.get('content-disposition')).toMatch(/^attachment; filename="v\.svg"$/);
    expect(vectorDownload.headers.get('content-type')).toBe('image/svg+xml');
    const pictureDownload = await fetch(picture.url);
    expect(pictureDownload.headers.get('content-disposition')).toBe('inline');
  });

  it('enforces the declared size and keeps a completed document’s object unchanged', async () => {
    const user = await t.signedInClient();
    const init = await initTextUpload(user, 'notes.txt');
    const put = (body: string) =>
      fetch(init.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body });
    expect((await put('hello, world!')).status).toBe(403);
    expect((await put('x'.repeat(5000))).status).toBe(403);
    expect((await put('hello, world')).status).toBe(200);
    const completed = await user.post(`/api/company/kb/documents/${init.documentId}/complete`);
    expect(completed.body).toMatchObject({ status: 'uploaded', sizeBytes: 12 });
    // The address still verifies until it expires, but only reaches the staging key.
    expect((await put('HELLO, WORLD')).status).toBe(200);
    const storage = t.app.services.storage;
    expect(await (await fetch(await storage.signedDownloadUrl(init.storageKey, 60))).text()).toBe(
      'hello, world',
    );
    expect((await user.delete(`/api/company/kb/documents/${init.documentId}`)).status).toBe(200);
    expect(await storage.head(init.storageKey)).toBeNull();
    expect(await storage.head(`uploads/${init.storageKey}`)).toBeNull();
  });

  it('answers complete with 409 and deletes an object of the wrong size', async () => {
    const user = await t.signedInClient();
    const init = await initTextUpload(user, 'notes.txt');
    const storage = t.app.services.storage;
    // As a store that did not check the signed length would have left it.
    await storage.put(`uploads/${init.storageKey}`, Buffer.alloc(5000, 'x'), 'text/plain');
    const problem = expectProblem(
      await user.post(`/api/company/kb/documents/${init.documentId}/complete`),
      409,
      'CONFLICT',
    );
    expect(problem.detail).toMatch(/5000 bytes, but 12 were declared/);
    expect(await storage.head(`uploads/${init.storageKey}`)).toBeNull();
    expect(await storage.head(init.storageKey)).toBeNull();
    const listed = (await user.get('/api/company/kb/documents')).body.documents[0];
    expect(listed).toMatchObject({ id: init.documentId, status: 'pending' });
  });

  it('runs the knowledge-base upload through a presigned PUT to the store', async () => {
    const user = await t.signedInClient();
    const init = await initTextUpload(user, 'faq.txt');
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
