import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gif, jpeg, png, svg, webp } from './helpers/files.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string };
let other: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp({
    IMAGE_MAX_BYTES: String(64 * 1024),
    KB_MAX_BYTES: '1000',
    UPLOAD_URL_EXPIRES_SECONDS: '60',
  });
  user = await t.signedInClient('Files Org');
  other = await t.signedInClient('Other Files Org');
});
afterAll(() => t.close());

const images = async (client = user) => (await client.get('/api/images')).body.images as any[];

describe('POST /api/images', () => {
  it.each([
    ['PNG', 'logo.png', png(40, 30), 'image/png'],
    ['JPEG', 'photo.jpg', jpeg(64, 48), 'image/jpeg'],
    ['GIF', 'anim.gif', gif(16, 8), 'image/gif'],
    ['WebP', 'hero.webp', webp(120, 60), 'image/webp'],
    ['SVG', 'mark.svg', svg(24, 12), 'image/svg+xml'],
  ])(
    'stores a %s with its type, size and dimensions (201), listed with a working URL',
    async (_kind, name, bytes, type) => {
      const response = await user.upload('/api/images', { name, bytes, type: 'application/octet-stream' });
      expect(response.status, response.text).toBe(201);
      const [width, height] = [
        { 'logo.png': 40, 'photo.jpg': 64, 'anim.gif': 16, 'hero.webp': 120, 'mark.svg': 24 }[name],
        { 'logo.png': 30, 'photo.jpg': 48, 'anim.gif': 8, 'hero.webp': 60, 'mark.svg': 12 }[name],
      ];
      expect(response.body).toEqual({
        id: expect.any(String),
        organizationId: user.organizationId,
        filename: name,
        objectKey: expect.stringMatching(new RegExp(`^org/${user.organizationId}/images/[0-9a-f-]+/`)),
        mimeType: type,
        size: bytes.length,
        url: expect.stringMatching(/^http:\/\//),
        createdAt: expect.any(String),
        width,
        height,
      });
      expect((await images())[0]).toMatchObject({ id: response.body.id });
      const download = await fetch(response.body.url);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
      expect(await t.eventTypes(response.body.id)).toEqual(['image.uploaded']);
    },
  );

  it('judges by content, not by name: a text file called .png is 415, and nothing is stored', async () => {
    const before = (await images()).length;
    const response = await user.upload('/api/images', {
      name: 'fake.png',
      bytes: Buffer.from('just text'),
      type: 'image/png',
    });
    expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.alloc(40)]);
    expectProblem(
      await user.upload('/api/images', { name: 'x.gif', bytes: zip }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(await images()).toHaveLength(before);
  });

  it('answers 413 past the configured size, 400 without a file part, 415 for a non-multipart body', async () => {
    const before = (await images()).length;
    const big = Buffer.concat([png(10, 10), Buffer.alloc(70 * 1024)]);
    expectProblem(
      await user.upload('/api/images', { name: 'big.png', bytes: big }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    const wrongPart = await user.upload('/api/images', { name: 'a.png', bytes: png(2, 2) }, 'image');
    expect(expectProblem(wrongPart, 400, 'BAD_REQUEST').issues?.[0]?.path).toEqual(['file']);
    const empty = new FormData();
    empty.append('note', 'no file here');
    expect(
      expectProblem(await user.request('POST', '/api/images', { body: empty }), 400, 'BAD_REQUEST')
        .issues?.[0]?.path,
    ).toEqual(['file']);
    expectProblem(await user.post('/api/images', { file: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await images()).toHaveLength(before);
  });

  it('answers a damaged image of a known type with 400', async () => {
    const truncated = png(10, 10).subarray(0, 20);
    expectProblem(
      await user.upload('/api/images', { name: 'broken.png', bytes: truncated }),
      400,
      'BAD_REQUEST',
    );
  });

  it('refuses an image claiming more pixels than any real one (2³¹−1 wide) with 400, storing nothing', async () => {
    const before = (await images()).length;
    for (const side of [0x7fffffff, 0xffffffff, 200_000]) {
      const claimed = png(1, 1);
      // IHDR width, after the signature (8), the chunk length (4) and its type (4).
      claimed.writeUInt32BE(side, 16);
      expectProblem(
        await user.upload('/api/images', { name: 'huge.png', bytes: claimed }),
        400,
        'BAD_REQUEST',
      );
    }
    expect(await images()).toHaveLength(before);
  });

  it('refuses anonymous uploads with 401', async () => {
    expectProblem(
      await t.client().upload('/api/images', { name: 'a.png', bytes: png(2, 2) }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('lists only the caller’s organization’s images, newest first, and deletes row and file', async () => {
    const first = (await user.upload('/api/images', { name: 'one.png', bytes: png(3, 3) })).body;
    const second = (await user.upload('/api/images', { name: 'two.png', bytes: png(3, 3) })).body;
    const theirs = (await other.upload('/api/images', { name: 'theirs.png', bytes: png(3, 3) })).body;
    const ids = (await images()).map((i) => i.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids).not.toContain(theirs.id);

    expectProblem(await other.delete(`/api/images/${first.id}`), 404, 'NOT_FOUND');
    expect((await user.delete(`/api/images/${first.id}`)).body).toEqual({ success: true });
    expect((await images()).map((i) => i.id)).not.toContain(first.id);
    expect(await t.app.services.storage.head(first.objectKey)).toBeNull();
    expect((await fetch(first.url)).status).toBe(404);
  });

  it('serves SVGs sandboxed, so they cannot run script on this origin', async () => {
    const image = (await user.upload('/api/images', { name: 'x.svg', bytes: svg(5, 5) })).body;
    const response = await fetch(image.url);
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('signed addresses of the local storage driver', () => {
  it('refuse a tampered, re-targeted or expired address with 403', async () => {
    const image = (await user.upload('/api/images', { name: 's.png', bytes: png(2, 2) })).body;
    const url = new URL(image.url);
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    expectProblem(await t.client().get(tampered.pathname + tampered.search), 403, 'FORBIDDEN');
    const otherKey = new URL(url);
    otherKey.pathname = `${otherKey.pathname.slice(0, otherKey.pathname.lastIndexOf('/') + 1)}other.png`;
    expectProblem(await t.client().get(otherKey.pathname + otherKey.search), 403, 'FORBIDDEN');
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectProblem(await t.client().get(extended.pathname + extended.search), 403, 'FORBIDDEN');
    const asUpload = await t
      .client()
      .request('PUT', url.pathname + url.search, { body: 'x', headers: { 'content-type': 'image/png' } });
    expectProblem(asUpload, 403, 'FORBIDDEN');

    const expiring = await startTestApp({ DOWNLOAD_URL_EXPIRES_SECONDS: '10' });
    try {
      const owner = await expiring.signedInClient();
      const shortLived = (await owner.upload('/api/images', { name: 'e.png', bytes: png(2, 2) })).body;
      const expired = new URL(shortLived.url);
      expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 1));
      const problem = expectProblem(
        await expiring.client().get(expired.pathname + expired.search),
        403,
        'FORBIDDEN',
      );
      expect(problem.detail).toMatch(/signature|expired/);
      expect((await fetch(shortLived.url)).status).toBe(200);
    } finally {
      await expiring.close();
    }
  });
});

describe('knowledge-base uploads', () => {
  const init = (body: Record<string, unknown>, client = user) =>
    client.post('/api/company/kb/documents/upload-init', {
      filename: 'Pricing FAQ.md',
      contentType: 'text/markdown',
      sizeBytes: 11,
      ...body,
    });

  it('initiates (201), takes the PUT, completes, lists and deletes', async () => {
    const response = await init({ displayName: 'Pricing FAQ' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      documentId: expect.any(String),
      uploadUrl: expect.stringMatching(/^http:\/\/.+\/storage\/org\//),
      storageKey: expect.stringMatching(
        new RegExp(`^org/${user.organizationId}/kb/[0-9a-f-]+/Pricing-FAQ\\.md$`),
      ),
      expiresIn: 60,
    });
    const { documentId, uploadUrl, storageKey } = response.body;
    const listed = (await user.get('/api/company/kb/documents')).body.documents[0];
    expect(listed).toMatchObject({
      id: documentId,
      status: 'pending',
      displayName: 'Pricing FAQ',
      sizeBytes: 11,
    });

    expectProblem(await user.post(`/api/company/kb/documents/${documentId}/complete`), 409, 'CONFLICT');
    const put = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: '# Pricing\n!',
    });
    expect(put.status).toBe(200);
    const completed = await user.post(`/api/company/kb/documents/${documentId}/complete`);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({
      id: documentId,
      status: 'uploaded',
      storageKey,
      uploadedAt: expect.any(String),
    });
    expect((await user.post(`/api/company/kb/documents/${documentId}/complete`)).body).toEqual(
      completed.body,
    );

    expectProblem(await other.delete(`/api/company/kb/documents/${documentId}`), 404, 'NOT_FOUND');
    expect((await user.delete(`/api/company/kb/documents/${documentId}`)).body).toEqual({ success: true });
    expect(await t.app.services.storage.head(storageKey)).toBeNull();
    expect(await t.eventTypes(documentId)).toEqual([
      'kb_document.upload_initiated',
      'kb_document.uploaded',
      'kb_document.deleted',
    ]);
  });

  it('refuses a PUT with another Content-Type, a larger body, or after expiry; complete checks the size', async () => {
    const { documentId, uploadUrl } = (await init({})).body;
    const wrongType = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/html' },
      body: '# Pricing\n!',
    });
    expect(wrongType.status).toBe(403);
    const tooBig = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: 'x'.repeat(12),
    });
    expect(tooBig.status).toBe(413);
    const short = await fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: 'short',
    });
    expect(short.status).toBe(200);
    const mismatch = expectProblem(
      await user.post(`/api/company/kb/documents/${documentId}/complete`),
      409,
      'CONFLICT',
    );
    expect(mismatch.detail).toMatch(/5 bytes, but 11 were declared/);

    const expired = new URL(uploadUrl);
    expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 1));
    const late = await fetch(expired, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: '# Pricing\n!',
    });
    expect(late.status).toBe(403);
  });

  it.each([
    ['no filename', { filename: undefined }, 'filename'],
    ['a type that is not a document', { contentType: 'image/png' }, 'contentType'],
    ['something that is not a media type', { contentType: 'markdown' }, 'contentType'],
    ['a size of 0', { sizeBytes: 0 }, 'sizeBytes'],
    ['a size over the limit', { sizeBytes: 1001 }, 'sizeBytes'],
    ['a fractional size', { sizeBytes: 1.5 }, 'sizeBytes'],
  ])('rejects %s with 400, creating nothing', async (_label, body, field) => {
    const before = (await user.get('/api/company/kb/documents')).body.documents.length;
    const problem = expectProblem(await init(body), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get('/api/company/kb/documents')).body.documents).toHaveLength(before);
  });

  it('lists only the caller’s organization’s documents', async () => {
    const theirs = (await init({}, other)).body.documentId;
    expect(
      (await user.get('/api/company/kb/documents')).body.documents.map((d: { id: string }) => d.id),
    ).not.toContain(theirs);
    expectProblem(await user.post(`/api/company/kb/documents/${theirs}/complete`), 404, 'NOT_FOUND');
  });
});
