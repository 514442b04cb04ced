import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../adapters/logger/logger.ts';
import { startApp } from '../app/app.ts';
import { loadConfig } from '../app/config.ts';
import { restRoutes } from '../rest/route-table.ts';
import { expectProblem, HttpClient } from './helpers/http-client.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { createTestDatabase, startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let client: HttpClient;

beforeAll(async () => {
  t = await startTestApp({ JSON_BODY_LIMIT_BYTES: '2048' });
  client = await t.signedInClient();
});
afterAll(() => t.close());

/** A concrete URL for a documented path: every `{param}` becomes a fresh UUID. */
function concretePath(path: string): string {
  return `/api${path.replace(/\{\w+\}/g, () => randomUUID())}`;
}

describe('authentication on every route', () => {
  const protectedRoutes = restRoutes.filter((p) => p.route.protect !== false);

  it('covers the routes of the foundation', () => {
    const routes = protectedRoutes.map((p) => `${p.route.method} ${p.route.path}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /auth/me',
        'POST /auth/logout',
        'POST /decks',
        'GET /decks',
        'DELETE /decks/{deckId}',
      ]),
    );
  });

  it.each(protectedRoutes.map((p) => [`${p.route.method} ${p.route.path}`, p]))(
    '%s answers 401 without a session cookie',
    async (_name, { route }) => {
      const response = await t.client().request(route.method, concretePath(route.path), {
        json: ['GET', 'DELETE'].includes(route.method) ? undefined : {},
      });
      expectProblem(response, 401, 'UNAUTHORIZED');
    },
  );

  it.each(protectedRoutes.map((p) => [`${p.route.method} ${p.route.path}`, p]))(
    '%s answers 401 to an unknown API key, exactly as without a cookie',
    async (_name, { route }) => {
      const json = ['GET', 'DELETE'].includes(route.method) ? undefined : {};
      const anonymous = await t.client().request(route.method, concretePath(route.path), { json });
      const response = await t.client().request(route.method, concretePath(route.path), {
        json,
        headers: { authorization: `Bearer dk_${'A'.repeat(43)}` },
      });
      expectProblem(response, 401, 'UNAUTHORIZED');
      expect(response.body).toEqual(anonymous.body);
    },
  );
});

describe('problem details for every failure', () => {
  it('404 for an unknown route', async () => {
    const problem = expectProblem(await client.get('/api/no-such-thing'), 404, 'NOT_FOUND');
    expect(problem.detail).toContain('/api/no-such-thing');
  });

  it('405 with Allow for a known path and another method', async () => {
    const response = await client.request('PUT', '/api/decks', { json: {} });
    expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  // Issue 29, finding 11: scanners' TRACE and PROPFIND were logged at error level, as if the service had failed.
  it('405 or 501 for every other method Node accepts (TRACE, PROPFIND, …), logged as an ordinary request', async () => {
    // CONNECT never reaches the app (Node hands it to a 'connect' listener; there is none).
    const served = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']);
    const methods = http.METHODS.filter((method) => !served.has(method));
    expect(methods).toEqual(expect.arrayContaining(['TRACE', 'PROPFIND']));
    for (const method of methods) {
      for (const path of ['/api/decks', '/', '/api/no-such-thing']) {
        const requestId = `unknown-method-${randomUUID()}`;
        const answer = await rawRequest(method, path, requestId);
        expect([405, 501], `${method} ${path}`).toContain(answer.status);
        expect(answer.contentType).toBe('application/problem+json');
        const lines = logLinesOf(requestId);
        expect(lines, `${method} ${path}`).toEqual([
          expect.objectContaining({ level: 30, msg: 'request', method, status: answer.status }),
        ]);
      }
    }
  });

  it('400 for malformed JSON', async () => {
    const response = await client.request('POST', '/api/decks', {
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectProblem(response, 400, 'BAD_REQUEST').detail).toMatch(/not valid JSON/);
  });

  it('415 for a body that is not JSON', async () => {
    const response = await client.request('POST', '/api/decks', {
      body: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 for a body over the limit, and nothing is created', async () => {
    const before = (await client.get('/api/decks')).body.decks.length;
    const response = await client.post('/api/decks', { name: 'x', padding: 'y'.repeat(4096) });
    expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    expect((await client.get('/api/decks')).body.decks.length).toBe(before);
  });

  it('400 (not a crash) for text PostgreSQL cannot store', async () => {
    const response = await client.post('/api/decks', { name: 'nul \u0000 byte' });
    expect(expectProblem(response, 400, 'BAD_REQUEST').issues?.[0]?.path).toEqual(['name']);
  });

  it('accepts a POST without a body on routes that need none', async () => {
    const other = await t.signedInClient();
    const response = await other.request('POST', '/api/auth/logout');
    expect(response.status).toBe(200);
  });
});

describe('failures of the service itself', () => {
  it('500 with a generic detail, no SQL and no stack, when a query fails unexpectedly', async () => {
    const broken = await startTestApp();
    try {
      const user = await broken.signedInClient();
      await broken.app.database.orm.em.getConnection().execute('drop table deck cascade');
      const problem = expectProblem(await user.get('/api/decks'), 500, 'INTERNAL_SERVER_ERROR');
      expect(problem.detail).toBe('An unexpected error occurred');
      expect(JSON.stringify(problem)).not.toMatch(/deck|select|relation/i);
      expect(
        broken
          .logs()
          .split('\n')
          .some((line) => line.includes('"level":50') && line.includes('procedure failed')),
      ).toBe(true);
    } finally {
      await broken.close();
    }
  });

  it('503 from routes and /readyz when the database is unreachable', async () => {
    const databaseUrl = new URL(await createTestDatabase());
    const proxy = await startTcpProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port) });
    databaseUrl.port = String(proxy.port);
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl.toString(),
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
    });
    const app = await startApp(config, createLogger('silent'));
    try {
      const anonymous = new HttpClient(app.url);
      expect((await anonymous.get('/readyz')).status).toBe(200);
      await proxy.stop();
      const response = await anonymous.post('/api/auth/login', { email: 'a@b.test', password: 'x' });
      expectProblem(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expectProblem(await anonymous.get('/readyz'), 503, 'SERVICE_UNAVAILABLE');
      expect((await anonymous.get('/healthz')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

/** A request by node:http: fetch refuses to send TRACE. Anonymous, with its own request id. */
function rawRequest(method: string, path: string, requestId: string) {
  return new Promise<{ status: number; contentType: string | undefined }>((resolve, reject) => {
    const request = http.request(new URL(path, t.url), { method, headers: { 'x-request-id': requestId } });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode!, contentType: response.headers['content-type'] }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** The app's log lines that carry this request id. */
function logLinesOf(requestId: string): Record<string, unknown>[] {
  return t
    .logs()
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
