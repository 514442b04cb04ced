import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// Issue 9, item 12: a form (or fetch) on another site cannot change anything with the
// victim's cookie; the service's own pages and header-less clients (curl, servers) can.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const EVIL = { origin: 'https://evil.example' };

/** What a plain HTML form sends: multipart or urlencoded, no custom headers. */
function formBody(kind: 'multipart' | 'urlencoded'): { body: BodyInit; headers?: Record<string, string> } {
  if (kind === 'multipart') {
    const form = new FormData();
    form.append('anything', 'x');
    return { body: form };
  }
  return {
    body: 'anything=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/** A refusal on /trpc: tRPC's error shape, with the code and status (its message as `detail`). */
function expectTrpcError(response: HttpResponse, status: number, code: string): { detail: string } {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body.error.data).toMatchObject({ code, httpStatus: status });
  return { detail: response.body.error.message };
}

async function expectStillSignedIn(client: HttpClient) {
  expect((await client.get('/api/auth/me')).status).toBe(200);
}

describe('cross-site requests', () => {
  for (const kind of ['multipart', 'urlencoded'] as const) {
    it(`a ${kind} form from another origin cannot call auth.logOut over /trpc or REST`, async () => {
      const victim = await t.signedInClient();
      for (const path of ['/trpc/auth.logOut', '/api/auth/logout']) {
        const { body, headers } = formBody(kind);
        const response = await victim.request('POST', path, { body, headers: { ...headers, ...EVIL } });
        const refused = path.startsWith('/trpc')
          ? expectTrpcError(response, 403, 'FORBIDDEN')
          : expectProblem(response, 403, 'FORBIDDEN');
        expect(refused.detail).toContain('https://evil.example');
        await expectStillSignedIn(victim);
      }
    });
  }

  it('an empty form post from another origin cannot sign out through REST', async () => {
    const victim = await t.signedInClient();
    const response = await victim.request('POST', '/api/auth/logout', {
      body: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...EVIL },
    });
    expectProblem(response, 403, 'FORBIDDEN');
    await expectStillSignedIn(victim);
  });

  it('refuses the REST multipart upload and JSON routes from another origin, writing nothing', async () => {
    const victim = await t.signedInClient();
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(png(2, 2))], { type: 'image/png' }), 'a.png');
    expectProblem(
      await victim.request('POST', '/api/images', { body: upload, headers: EVIL }),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await victim.request('POST', '/api/decks', { json: { name: 'Planted' }, headers: EVIL }),
      403,
      'FORBIDDEN',
    );
    // `Origin: null` (sandboxed frames, data: pages) is no origin of ours either.
    expectProblem(
      await victim.request('POST', '/api/decks', { json: { name: 'Planted' }, headers: { origin: 'null' } }),
      403,
      'FORBIDDEN',
    );
    expect((await victim.get('/api/images')).body.images).toEqual([]);
    expect((await victim.get('/api/decks')).body.decks).toEqual([]);
  });

  it('refuses by Sec-Fetch-Site: cross-site and same-site, on every unsafe method', async () => {
    const victim = await t.signedInClient();
    const deck = (await victim.post('/api/decks', { name: 'Mine' })).body;
    for (const site of ['cross-site', 'same-site']) {
      const headers = { 'sec-fetch-site': site };
      expectProblem(
        await victim.request('POST', '/api/decks', { json: { name: 'x' }, headers }),
        403,
        'FORBIDDEN',
      );
      expectProblem(
        await victim.request('PATCH', `/api/decks/${deck.id}`, { json: { name: 'x' }, headers }),
        403,
        'FORBIDDEN',
      );
      expectProblem(await victim.request('DELETE', `/api/decks/${deck.id}`, { headers }), 403, 'FORBIDDEN');
      expectTrpcError(
        await victim.request('POST', '/trpc/decks.createDeck', { json: { name: 'x' }, headers }),
        403,
        'FORBIDDEN',
      );
    }
    expect((await victim.get('/api/decks')).body.decks.map((d: any) => d.name)).toEqual(['Mine']);
  });

  it('lets reads through from anywhere (they change nothing)', async () => {
    const victim = await t.signedInClient();
    const response = await victim.get('/api/auth/me', { ...EVIL, 'sec-fetch-site': 'cross-site' });
    expect(response.status).toBe(200);
  });
});

describe('requests from the service itself, and without browser headers', () => {
  it('pass with the own Origin or Sec-Fetch-Site: same-origin, on REST, multipart and /trpc', async () => {
    const user = await t.signedInClient();
    const own = { origin: t.url };
    const sameOrigin = { 'sec-fetch-site': 'same-origin', origin: t.url };
    expect((await user.request('POST', '/api/decks', { json: { name: 'A' }, headers: own })).status).toBe(
      201,
    );
    expect(
      (await user.request('POST', '/api/decks', { json: { name: 'B' }, headers: sameOrigin })).status,
    ).toBe(201);
    // A user typing the address (Sec-Fetch-Site: none) is no other site either.
    expect(
      (
        await user.request('POST', '/api/decks', {
          json: { name: 'C' },
          headers: { 'sec-fetch-site': 'none' },
        })
      ).status,
    ).toBe(201);
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(png(2, 2))], { type: 'image/png' }), 'a.png');
    expect((await user.request('POST', '/api/images', { body: upload, headers: own })).status).toBe(201);
    const trpc = await user.request('POST', '/trpc/decks.createDeck', { json: { name: 'D' }, headers: own });
    expect(trpc.status).toBe(200);
    expect((await user.get('/api/decks')).body.decks).toHaveLength(4);
  });

  it('pass without Origin or Sec-Fetch-Site (curl, servers)', async () => {
    const user = await t.signedInClient();
    expect((await user.post('/api/decks', { name: 'From curl' })).status).toBe(201);
    expect(
      (await user.request('POST', '/trpc/decks.createDeck', { json: { name: 'From a server' } })).status,
    ).toBe(200);
    expect((await user.post('/api/auth/logout')).status).toBe(200);
  });

  it('takes PUBLIC_URL as the own origin too (behind a proxy that rewrites the scheme)', async () => {
    const proxied = await startTestApp({ PUBLIC_URL: 'https://decks.example.com/' });
    try {
      const user = await proxied.signedInClient();
      const create = (origin: string) =>
        user.request('POST', '/api/decks', { json: { name: 'x' }, headers: { origin } });
      expect((await create('https://decks.example.com')).status).toBe(201);
      expect((await create(proxied.url)).status).toBe(201);
      expectProblem(await create('https://decks.example.com.evil.example'), 403, 'FORBIDDEN');
      expectProblem(await create('http://decks.example.com'), 403, 'FORBIDDEN');
    } finally {
      await proxied.close();
    }
  });

  it('leaves the signed /storage upload addresses to their signature', async () => {
    const user = await t.signedInClient();
    const init = await user.post('/api/company/kb/documents/upload-init', {
      filename: 'notes.md',
      contentType: 'text/markdown',
      sizeBytes: 5,
    });
    expect(init.status).toBe(201);
    const put = await fetch(init.body.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown', ...EVIL, 'sec-fetch-site': 'cross-site' },
      body: 'hello',
    });
    expect(put.status).toBe(200);
  });
});

describe('/trpc bodies', () => {
  it('are application/json only for mutations: a form body is a 415, even with no Origin', async () => {
    const victim = await t.signedInClient();
    for (const kind of ['multipart', 'urlencoded'] as const) {
      const { body, headers } = formBody(kind);
      const response = await victim.request('POST', '/trpc/auth.logOut', { body, headers });
      expectTrpcError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      await expectStillSignedIn(victim);
    }
    const plain = await victim.request('POST', '/trpc/decks.createDeck', {
      body: JSON.stringify({ name: 'x' }),
      headers: { 'content-type': 'text/plain' },
    });
    expectTrpcError(plain, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await victim.get('/api/decks')).body.decks).toEqual([]);
  });
});
