import { readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from './helpers/files.ts';
import { expectProblem } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/** The local storage driver's signed `/storage` addresses, probed as an attacker would. */
let t: TestApp;
let user: Awaited<ReturnType<TestApp['signedInClient']>>;
beforeAll(async () => {
  t = await startTestApp({ KB_MAX_BYTES: '1000' });
  user = await t.signedInClient();
});
afterAll(() => t?.close());

const init = (sizeBytes: number) =>
  user
    .post('/api/company/kb/documents/upload-init', {
      filename: 'notes.txt',
      contentType: 'text/plain',
      sizeBytes,
    })
    .then((r) => {
      expect(r.status).toBe(201);
      return r.body as { documentId: string; uploadUrl: string; storageKey: string };
    });
const put = (url: string, body: BodyInit, init: RequestInit = {}) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body, ...init });
const complete = (documentId: string) => user.post(`/api/company/kb/documents/${documentId}/complete`);
const stored = async (key: string) => {
  const object = await t.app.services.storage.head(key);
  return object ? (await fetch(await t.app.services.storage.signedDownloadUrl(key, 60))).text() : null;
};
/** Files left in the object's directory (a failed upload must leave no `.part` behind). */
const filesBeside = async (key: string) =>
  readdir(path.join(t.app.config.dataDir, 'objects', path.dirname(key))).catch(() => []);

/** A raw request: fetch would normalise `..` and refuse some bytes before sending them. */
function rawRequest(
  method: string,
  rawPath: string,
): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method, path: rawPath, headers: { 'content-length': '0' } },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, body, type: String(response.headers['content-type']) }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('upload addresses are single-use and the object immutable', () => {
  it('refuses a second PUT to the same address with 409, keeping the first object', async () => {
    const { uploadUrl, storageKey } = await init(5);
    expect((await put(uploadUrl, 'first')).status).toBe(200);
    const second = await put(uploadUrl, 'other');
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await stored(storageKey)).toBe('first');
  });

  it('lets exactly one of concurrent PUTs to one address win', async () => {
    const { uploadUrl, storageKey } = await init(5);
    const bodies = ['aaaaa', 'bbbbb', 'ccccc', 'ddddd', 'eeeee', 'fffff'];
    const statuses = await Promise.all(bodies.map((body) => put(uploadUrl, body).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(bodies.length - 1);
    expect(await stored(storageKey)).toBe(bodies[statuses.indexOf(200)]);
    expect(await filesBeside(storageKey)).toEqual([path.basename(storageKey)]);
  });

  it('never changes a completed document’s object', async () => {
    const { documentId, uploadUrl, storageKey } = await init(5);
    expect((await put(uploadUrl, 'hello')).status).toBe(200);
    expect((await complete(documentId)).body).toMatchObject({ status: 'uploaded' });
    expect((await put(uploadUrl, 'HELLO')).status).toBe(409);
    expect(await stored(storageKey)).toBe('hello');
    expect((await complete(documentId)).body).toMatchObject({ status: 'uploaded', sizeBytes: 5 });
  });

  it('completes once under concurrent completes: one event', async () => {
    const { documentId, uploadUrl } = await init(5);
    expect((await put(uploadUrl, 'hello')).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 20 }, () => complete(documentId)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.uploadedAt)).size).toBe(1);
    expect(await t.eventTypes(documentId)).toEqual(['kb_document.upload_initiated', 'kb_document.uploaded']);
  });
});

describe('sizes at and past the limit', () => {
  it('takes exactly the declared size; one byte more is a 413 that leaves nothing, so a retry works', async () => {
    const { documentId, uploadUrl, storageKey } = await init(1000);
    const tooBig = await put(uploadUrl, 'x'.repeat(1001));
    expect(tooBig.status).toBe(413);
    expect(await t.app.services.storage.head(storageKey)).toBeNull();
    expect(await filesBeside(storageKey)).toEqual([]);
    expect((await put(uploadUrl, 'x'.repeat(1000))).status).toBe(200);
    expect((await complete(documentId)).body).toMatchObject({ status: 'uploaded', sizeBytes: 1000 });
  });

  it('stops a chunked body (no Content-Length) past the declared size, leaving nothing', async () => {
    const { uploadUrl, storageKey } = await init(1000);
    const chunks = [Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b')];
    const body = new ReadableStream({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk) controller.enqueue(new Uint8Array(chunk));
        else controller.close();
      },
    });
    const response = await put(uploadUrl, body, { duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    expect(await t.app.services.storage.head(storageKey)).toBeNull();
    expect(await filesBeside(storageKey)).toEqual([]);
  });

  it('discards a file of the wrong size at complete (409), so the same address can take the right one', async () => {
    const { documentId, uploadUrl, storageKey } = await init(11);
    expect((await put(uploadUrl, 'short')).status).toBe(200);
    const problem = expectProblem(await complete(documentId), 409, 'CONFLICT');
    expect(problem.detail).toMatch(/5 bytes, but 11 were declared; it was discarded/);
    expect(await t.app.services.storage.head(storageKey)).toBeNull();
    expect((await put(uploadUrl, 'hello world')).status).toBe(200);
    expect((await complete(documentId)).body).toMatchObject({ status: 'uploaded' });
    expect(await stored(storageKey)).toBe('hello world');
  });

  it('refuses sizes past KB_MAX_BYTES at upload-init', async () => {
    const problem = expectProblem(
      await user.post('/api/company/kb/documents/upload-init', {
        filename: 'big.txt',
        contentType: 'text/plain',
        sizeBytes: 1001,
      }),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues?.[0]?.path).toEqual(['sizeBytes']);
  });
});

describe('malformed /storage paths', () => {
  it.each([
    ['bad percent-encoding', '/storage/%E0%A4%A'],
    ['a lone percent sign', '/storage/org/%'],
    ['an encoded NUL', '/storage/org/a%00b'],
    ['a raw `..` segment', '/storage/org/../../../etc/passwd'],
    ['an encoded `..` segment', '/storage/org/%2e%2e/%2e%2e/etc/passwd'],
    ['encoded slashes around `..`', '/storage/org%2F..%2F..%2Fetc%2Fpasswd'],
    ['a `.` segment', '/storage/org/./x'],
    ['an empty segment', '/storage/org//x'],
    ['a character outside keys', '/storage/org/a%20b'],
    ['an overlong key', `/storage/org/${'a'.repeat(1100)}`],
    ['no key at all', '/storage/'],
  ])('answers %s with a 400 problem, for GET and PUT', async (_label, rawPath) => {
    for (const method of ['GET', 'PUT']) {
      const response = await rawRequest(method, `${rawPath}?method=${method}&expires=1&signature=x`);
      expect(response.status, `${method} ${rawPath}`).toBe(400);
      expect(response.type).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(response.body)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    }
  });

  it('answers malformed signature fields with 403, never 500', async () => {
    const image = (await user.upload('/api/images', { name: 'p.png', bytes: png(2, 2) })).body;
    const url = new URL(image.url);
    for (const [name, value] of [
      ['expires', 'NaN'],
      ['expires', '1e99'],
      ['expires', '-1'],
      ['expires', ''],
      ['signature', ''],
      ['method', 'PUT'],
    ] as const) {
      const altered = new URL(url);
      altered.searchParams.set(name, value);
      expectProblem(await t.client().get(altered.pathname + altered.search), 403, 'FORBIDDEN');
    }
    expect((await fetch(url)).status).toBe(200);
  });
});
