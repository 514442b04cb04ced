import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../routers/app-router.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { createTestDatabase, startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Every answer on /trpc, the edge's refusals included, is in tRPC's error shape, so that the real
 * @trpc/client turns it into a TRPCClientError with `data.code` and `data.httpStatus` (and never
 * "Unable to transform response from server"), one error per call of a batch.
 */

/** Small limits: a body of more than 2 KiB is a 413; a caller's tenth request in a minute a 429. */
const RATE_LIMIT = 9;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ JSON_BODY_LIMIT_BYTES: '2048', RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) });
});
afterAll(() => t.close());

type LinkKind = 'httpLink' | 'httpBatchLink';
type Client = ReturnType<typeof createTRPCClient<AppRouter>>;
/** A client typed loosely, for calls the router does not have (or not with that method). */
type AnyClient = Record<string, Record<string, Record<string, (input: unknown) => Promise<unknown>>>>;

/** What tRPC's client hands its `fetch` (a subset of RequestInit). */
type RequestInitEsque = { headers?: unknown; body?: unknown; method?: string };

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A real @trpc/client over `link`, against the running app. `headers` go on every request;
 * `rewrite` changes a request before it leaves (its content type, its body). Every answer's
 * status, headers and JSON body are kept in `answers`.
 */
function trpcClient(
  baseUrl: string,
  link: LinkKind,
  options: { headers?: Record<string, string>; rewrite?: (headers: Headers, body: unknown) => unknown } = {},
) {
  const answers: Answer[] = [];
  const linkOptions = {
    url: `${baseUrl}/trpc`,
    async fetch(url: URL | RequestInfo, init?: RequestInit | RequestInitEsque) {
      const headers = new Headers(init?.headers as HeadersInit);
      for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
      const body = options.rewrite ? options.rewrite(headers, init?.body) : init?.body;
      const response = await fetch(url as string, {
        ...(init as RequestInit),
        headers,
        body: body as BodyInit,
      });
      const text = await response.clone().text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
      answers.push({ status: response.status, headers: response.headers, body: parsed });
      return response;
    },
  };
  const client = createTRPCClient<AppRouter>({
    links: [link === 'httpLink' ? httpLink(linkOptions) : httpBatchLink({ ...linkOptions, maxItems: 20 })],
  });
  return { client, loose: client as unknown as AnyClient, answers };
}
interface Expected {
  code: string;
  httpStatus: number;
}

/**
 * Makes the calls `make` makes, through httpLink (one request each) and through httpBatchLink
 * (one batched request, `?batch=1`), and checks that each is refused with `expected`: a
 * TRPCClientError whose data says the code and status, an answer of that status whose body is
 * tRPC's error shape (an array with one error per call for a batch). Answers the answers.
 */
async function expectRefused(
  baseUrl: string,
  make: (client: Client, loose: AnyClient) => Promise<unknown>[],
  expected: Expected,
  options: Parameters<typeof trpcClient>[2] = {},
): Promise<Answer[]> {
  const all: Answer[] = [];
  for (const link of ['httpLink', 'httpBatchLink'] as const) {
    const { client, loose, answers } = trpcClient(baseUrl, link, options);
    const outcomes = await Promise.allSettled(make(client, loose));
    for (const outcome of outcomes) {
      expect(outcome.status, `${link}: the call succeeded`).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason;
      expect(error, `${link}: ${String(error)}`).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<AppRouter>).message).not.toMatch(/Unable to transform/);
      expect((error as TRPCClientError<AppRouter>).data, `${link}: ${error.message}`).toMatchObject(expected);
    }
    const shape = {
      error: {
        code: expect.any(Number),
        message: expect.any(String),
        data: expect.objectContaining(expected),
      },
    };
    if (link === 'httpBatchLink') {
      // All calls made in one tick go out as one request; its answer holds one error per call.
      expect(answers).toHaveLength(1);
      expect(answers[0]!.body).toEqual(outcomes.map(() => expect.objectContaining(shape)));
    } else {
      expect(answers).toHaveLength(outcomes.length);
      for (const answer of answers) expect(answer.body).toMatchObject(shape);
    }
    for (const answer of answers) {
      expect(answer.status).toBe(expected.httpStatus);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    }
    all.push(...answers);
  }
  return all;
}

async function deckNames(client: { get(path: string): Promise<{ body: any }> }): Promise<string[]> {
  return (await client.get('/api/decks')).body.decks.map((deck: { name: string }) => deck.name);
}

describe('refusals on /trpc in tRPC’s error shape, through @trpc/client', () => {
  it('authentication (401): no caller, or an Authorization header that is no valid key', async () => {
    await expectRefused(t.url, (c) => [c.decks.listDecks.query({}), c.auth.getCurrentUser.query({})], {
      code: 'UNAUTHORIZED',
      httpStatus: 401,
    });
    await expectRefused(
      t.url,
      (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
      { code: 'UNAUTHORIZED', httpStatus: 401 },
      { headers: { authorization: 'Bearer dk_not-a-key' } },
    );
  });

  it('rate limit (429), with Retry-After and the RateLimit-* headers', async () => {
    const user = await t.signedInClient();
    for (let i = 0; i < RATE_LIMIT; i++) expect((await user.get('/api/decks')).status).toBe(200);
    const answers = await expectRefused(
      t.url,
      (c) => [c.decks.listDecks.query({}), c.decks.listDecks.query({})],
      { code: 'TOO_MANY_REQUESTS', httpStatus: 429 },
      { headers: { cookie: user.cookieHeader } },
    );
    for (const answer of answers) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answer.headers.get('ratelimit-limit')).toBe(String(RATE_LIMIT));
      expect(answer.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(answer.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('body too large (413), and nothing is written', async () => {
    const user = await t.signedInClient();
    await expectRefused(
      t.url,
      (c) => [
        c.decks.createDeck.mutate({ name: 'x'.repeat(2500) }),
        c.decks.createDeck.mutate({ name: 'y'.repeat(2500) }),
      ],
      { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 },
      { headers: { cookie: user.cookieHeader } },
    );
    expect(await deckNames(user)).toEqual([]);
  });

  it('wrong content type (415), and nothing is written', async () => {
    const user = await t.signedInClient();
    await expectRefused(
      t.url,
      (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
      { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 },
      {
        headers: { cookie: user.cookieHeader },
        rewrite: (headers, body) => {
          headers.set('content-type', 'text/plain');
          return body;
        },
      },
    );
    expect(await deckNames(user)).toEqual([]);
  });

  it('same-origin refusal (403) of a mutation from another site, and nothing is written', async () => {
    const user = await t.signedInClient();
    for (const headers of [
      { origin: 'https://elsewhere.example' },
      { 'sec-fetch-site': 'cross-site' },
    ] as Record<string, string>[]) {
      await expectRefused(
        t.url,
        (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
        { code: 'FORBIDDEN', httpStatus: 403 },
        { headers: { cookie: user.cookieHeader, ...headers } },
      );
    }
    expect(await deckNames(user)).toEqual([]);
  });

  it('Idempotency-Key on a mutation (400: /trpc keeps no answers), and nothing is written', async () => {
    const user = await t.signedInClient();
    for (const key of ['x', 'k'.repeat(256)]) {
      const answers = await expectRefused(
        t.url,
        (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
        { code: 'BAD_REQUEST', httpStatus: 400 },
        { headers: { cookie: user.cookieHeader, 'idempotency-key': key } },
      );
      expect((answers[0] as { body: any }).body.error.data.issues).toEqual([
        { path: ['headers', 'Idempotency-Key'], message: expect.any(String) },
      ]);
    }
    expect(await deckNames(user)).toEqual([]);
  });

  it('the issue’s curl repro: an API key, a JSON body and Idempotency-Key x answer tRPC’s shape', async () => {
    const owner = await t.signedInClient();
    const key = (await owner.post('/api/api-keys', { name: 'CI', access: 'write' })).body.secret as string;
    // curl -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -H 'Idempotency-Key: x'
    //   -d '{"name":"x"}' $BASE/trpc/decks.createDeck
    const response = await fetch(`${t.url}/trpc/decks.createDeck`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'x' },
      body: '{"name":"x"}',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: {
        message: 'Idempotency-Key is honoured on /api routes only, not on /trpc',
        code: -32600,
        data: {
          code: 'BAD_REQUEST',
          httpStatus: 400,
          path: 'decks.createDeck',
          issues: [{ path: ['headers', 'Idempotency-Key'], message: 'not supported on /trpc' }],
        },
      },
    });
    expect(await deckNames(owner)).toEqual([]);
    // The same request on /api is honoured, and its refusals stay problem details.
    const rest = await fetch(`${t.url}/api/decks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: '{"name":"x"}',
    });
    expect(rest.status).toBe(415);
    expect(rest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await rest.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('malformed JSON (400)', async () => {
    const user = await t.signedInClient();
    await expectRefused(
      t.url,
      (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
      { code: 'BAD_REQUEST', httpStatus: 400 },
      { headers: { cookie: user.cookieHeader }, rewrite: () => '{"0":{"name":' },
    );
    expect(await deckNames(user)).toEqual([]);
  });

  it('unknown procedure (404)', async () => {
    const user = await t.signedInClient();
    await expectRefused(
      t.url,
      (_c, loose) => [loose.decks!.noSuchProcedure!.query!({}), loose.nothing!.here!.query!({})],
      { code: 'NOT_FOUND', httpStatus: 404 },
      { headers: { cookie: user.cookieHeader } },
    );
  });

  it('wrong method (405): a query sent as a mutation, a mutation as a query', async () => {
    const user = await t.signedInClient();
    await expectRefused(
      t.url,
      (_c, loose) => [loose.decks!.listDecks!.mutate!({}), loose.auth!.getCurrentUser!.mutate!({})],
      { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 },
      { headers: { cookie: user.cookieHeader } },
    );
    await expectRefused(
      t.url,
      (_c, loose) => [
        loose.decks!.createDeck!.query!({ name: 'A' }),
        loose.decks!.createDeck!.query!({ name: 'B' }),
      ],
      { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 },
      { headers: { cookie: user.cookieHeader } },
    );
    expect(await deckNames(user)).toEqual([]);
  });
});

describe('/trpc with the database down', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, for a session, an API key and a sign-in', async () => {
    const databaseUrl = new URL(await createTestDatabase());
    const proxy = await startTcpProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port) });
    databaseUrl.port = String(proxy.port);
    const down = await startTestApp({}, { databaseUrl: databaseUrl.toString() });
    try {
      const user = await down.signedInClient();
      const key = (await user.post('/api/api-keys', { name: 'CI', access: 'write' })).body.secret as string;
      await proxy.stop();
      const expected = { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 };
      const answers = [
        ...(await expectRefused(
          down.url,
          (c) => [c.decks.listDecks.query({}), c.auth.getCurrentUser.query({})],
          expected,
          { headers: { cookie: user.cookieHeader } },
        )),
        ...(await expectRefused(
          down.url,
          (c) => [c.decks.createDeck.mutate({ name: 'A' }), c.decks.createDeck.mutate({ name: 'B' })],
          expected,
          { headers: { authorization: `Bearer ${key}` } },
        )),
        // Sign-in goes alone (it cannot be batched): a batch of one.
        ...(await expectRefused(
          down.url,
          (c) => [c.auth.logIn.mutate({ email: user.email, password: user.password })],
          expected,
        )),
      ];
      for (const answer of answers) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|connect|pool/i);
      }
    } finally {
      await down.close();
    }
  });
});
