import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_KINDS } from '../domain/errors.ts';
import { png } from './helpers/files.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { parseAnswer, type RawAnswer } from './helpers/raw-answer.ts';
import { startTestApp, type TestApp, uploadBudgetEnv } from './helpers/test-app.ts';

/**
 * The request-body path after issue 29: a JSON body that stops arriving is cut off (408), a body
 * anybody can make the service read (sign-in's) is small, a signed-in caller's JSON body is
 * charged to its share of the upload memory budget as it arrives, and a multipart body is no
 * longer than its file limit and framing. Raw connections, so that a body can be sent in part,
 * chunked, or declared longer than it is.
 */
const KiB = 1024;
const MiB = 1024 * KiB;
/** What sign-in's body may be (rest/admission.ts, PUBLIC_BODY_LIMIT_BYTES). */
const PUBLIC_LIMIT = 16 * KiB;
/** IMAGE_MAX_BYTES here; an image's body may be that and 64 KiB of multipart framing. */
const IMAGE_LIMIT = 1024;
const IMAGE_BODY_LIMIT = IMAGE_LIMIT + 64 * KiB;
/** The least a share may be: one upload of the largest size (a 10 MiB contract). */
const SHARE = 10 * MiB;

interface RawRequest {
  path: string;
  headers?: Record<string, string>;
  /** The body bytes sent (all of them, or the first part of a longer declared or chunked one). */
  body: Buffer;
  /** The Content-Length sent (default: the body's length); ignored when chunked. */
  declaredLength?: number;
  /** Sent as one chunk of a chunked body that is never finished. */
  chunked?: boolean;
  cookie?: string;
}

const opened: net.Socket[] = [];

/**
 * One request on its own connection (`Connection: close`); `answer` is what the server said
 * once it has closed the connection (null when it closed without a word).
 */
function rawRequest(app: TestApp, request: RawRequest) {
  const { hostname, port } = new URL(app.url);
  const socket = net.connect(Number(port), hostname);
  opened.push(socket);
  const headers = {
    Host: `${hostname}:${port}`,
    Connection: 'close',
    'Content-Type': 'application/json',
    ...(request.cookie ? { Cookie: request.cookie } : {}),
    ...(request.chunked
      ? { 'Transfer-Encoding': 'chunked' }
      : { 'Content-Length': String(request.declaredLength ?? request.body.length) }),
    ...request.headers,
  };
  socket.write(
    `POST ${request.path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`,
  );
  if (request.chunked) socket.write(`${request.body.length.toString(16)}\r\n`);
  if (request.body.length > 0) socket.write(request.body);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  // The server may reset a connection it has answered; the answer is what counts.
  socket.on('error', () => {});
  return new Promise<RawAnswer | null>((resolve) => {
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

/** `value` as JSON, padded with trailing whitespace to exactly `bytes` bytes. */
function jsonOfLength(value: unknown, bytes: number): Buffer {
  const text = JSON.stringify(value);
  expect(text.length).toBeLessThanOrEqual(bytes);
  return Buffer.from(text.padEnd(bytes, ' '));
}

/** Rows a request may write: decks (and their events), sessions and sign-in throttle counts. */
async function written(t: TestApp) {
  const [row] = await t.app.database.orm.em.getConnection().execute<Record<string, number>[]>(
    `select (select count(*) from deck)::int as decks, (select count(*) from event)::int as events,
       (select count(*) from session)::int as sessions, (select count(*) from login_throttle)::int as throttles,
       (select count(*) from image)::int as images`,
  );
  return row!;
}

/**
 * A refusal with the connection closed: problem details on /api; on /trpc tRPC's error shape, with
 * the tRPC code of the same kind (domain/errors.ts).
 */
function expectClosedWith(answer: RawAnswer | null, status: number, code: string) {
  expect(answer?.status).toBe(status);
  expect(answer?.headers.connection).toBe('close');
  if (answer?.body?.error) {
    const trpcCode = Object.values(ERROR_KINDS).find((kind) => kind.code === code)?.trpcCode;
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.error.data).toMatchObject({ code: trpcCode, httpStatus: status });
  } else {
    expect(answer?.headers['content-type']).toBe('application/problem+json');
    expect(answer?.body).toMatchObject({ status, code });
  }
}

/** What a refusal says: a problem's detail, or a tRPC error's message. */
function detailOf(answer: RawAnswer | null): string | undefined {
  return answer?.body?.detail ?? answer?.body?.error?.message;
}

afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

describe('a JSON body that stops arriving', () => {
  let t: TestApp;
  let user: HttpClient;
  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_IDLE_TIMEOUT_MS: '1000' });
    user = await t.signedInClient();
  });
  afterAll(() => t.close());

  const cases = [
    { label: 'REST, signed in', path: '/api/decks', signedIn: true },
    { label: 'REST sign-in, anonymous', path: '/api/auth/login', signedIn: false },
    { label: '/trpc, signed in', path: '/trpc/decks.createDeck', signedIn: true },
    { label: '/trpc sign-in, anonymous', path: '/trpc/auth.logIn', signedIn: false },
  ];
  for (const { label, path, signedIn } of cases) {
    it(`is cut off after UPLOAD_IDLE_TIMEOUT_MS with a 408 and the connection closed (${label})`, async () => {
      const before = await written(t);
      const answer = await rawRequest(t, {
        path,
        body: Buffer.from('{"name":"stalled'),
        declaredLength: 1000,
        cookie: signedIn ? user.cookieHeader : undefined,
      });
      expectClosedWith(answer, 408, 'REQUEST_TIMEOUT');
      expect(detailOf(answer)).toMatch(/no bytes arrived for 1000 ms/);
      expect(await written(t)).toEqual(before);
      // What the signed-in body held of the upload budget is given back.
      expect(t.app.edge.uploadBudget.used).toBe(0);
    });
  }
});

describe('the sign-in body', () => {
  let t: TestApp;
  const email = 'cap@example.test';
  const password = 'a-long-password-for-the-cap';
  beforeAll(async () => {
    t = await startTestApp();
    await t.createUser({ organization: 'Cap', email, password });
  });
  afterAll(() => t.close());

  for (const path of ['/api/auth/login', '/trpc/auth.logIn']) {
    it(`is read up to ${PUBLIC_LIMIT} bytes and refused with 413 past them, writing nothing (${path})`, async () => {
      const atLimit = await rawRequest(t, { path, body: jsonOfLength({ email, password }, PUBLIC_LIMIT) });
      expect(atLimit?.status).toBe(200);

      const before = await written(t);
      const past = await rawRequest(t, { path, body: jsonOfLength({ email, password }, PUBLIC_LIMIT + 1) });
      expectClosedWith(past, 413, 'PAYLOAD_TOO_LARGE');
      expect(detailOf(past)).toBe('The request body is larger than 16 KB');
      // A declared length past the cap is refused before a byte of the body is read.
      const declared = await rawRequest(t, { path, body: Buffer.alloc(0), declaredLength: MiB });
      expectClosedWith(declared, 413, 'PAYLOAD_TOO_LARGE');
      expect(await written(t)).toEqual(before);
    });
  }

  it('caps every anonymous /trpc body the same way, whatever procedure it names', async () => {
    const before = await written(t);
    const body = jsonOfLength({ name: 'x' }, PUBLIC_LIMIT + 1);
    expectClosedWith(await rawRequest(t, { path: '/trpc/decks.createDeck', body }), 413, 'PAYLOAD_TOO_LARGE');
    expect(await written(t)).toEqual(before);
    // A signed-in caller's body may be as long as JSON_BODY_LIMIT_BYTES.
    const user = await t.signedInClient();
    const created = await rawRequest(t, { path: '/trpc/decks.createDeck', body, cookie: user.cookieHeader });
    expect(created?.status).toBe(200);
  });
});

describe("a signed-in caller's JSON body and the upload budget", () => {
  let t: TestApp;
  let user: HttpClient;
  beforeAll(async () => {
    t = await startTestApp(uploadBudgetEnv(SHARE));
    user = await t.signedInClient();
  });
  afterAll(() => t.close());

  it('holds its bytes as they arrive, and gives them back when the request ends', async () => {
    const budget = t.app.edge.uploadBudget;
    const sent = 300 * KiB;
    const stalled = rawRequest(t, {
      path: '/api/decks',
      body: Buffer.from(`{"name":"${'x'.repeat(sent - 9)}`),
      declaredLength: MiB,
      cookie: user.cookieHeader,
    });
    await expect.poll(() => budget.used, { timeout: 10_000 }).toBe(sent);
    for (const socket of opened) socket.destroy();
    expect(await stalled).toBeNull();
    await expect.poll(() => budget.used, { timeout: 10_000 }).toBe(0);
  });

  it("past the caller's share a JSON body is a 429 and writes nothing; within it, it is taken", async () => {
    const budget = t.app.edge.uploadBudget;
    const room = 2 * KiB;
    // A contract import that holds all of the caller's share but `room`, and waits.
    const boundary = 'request-bodies-test';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    );
    void rawRequest(t, {
      path: '/api/contracts/import',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([head, Buffer.alloc(SHARE - room - head.length, 0x25)]),
      // The most a contract import may be: its file limit (the share) and 64 KiB of framing.
      declaredLength: SHARE + 64 * KiB,
      cookie: user.cookieHeader,
    });
    await expect.poll(() => budget.used, { timeout: 10_000 }).toBe(SHARE - room);

    const before = await written(t);
    const past = await rawRequest(t, {
      path: '/api/decks',
      body: jsonOfLength({ name: 'too much' }, room + 1),
      cookie: user.cookieHeader,
    });
    expectClosedWith(past, 429, 'TOO_MANY_REQUESTS');
    expect(past?.headers['retry-after']).toBe('5');
    expect(past?.body.detail).toMatch(/as much memory as one caller may/);
    expect(await written(t)).toEqual(before);

    const within = await rawRequest(t, {
      path: '/api/decks',
      body: jsonOfLength({ name: 'fits' }, room),
      cookie: user.cookieHeader,
    });
    expect(within?.status).toBe(201);
    expect(budget.used).toBe(SHARE - room);
  });
});

describe('a multipart body', () => {
  let t: TestApp;
  let user: HttpClient;
  const boundary = 'request-bodies-image';
  const contentType = `multipart/form-data; boundary=${boundary}`;
  /** A small PNG in its part, then an epilogue that makes the body exactly `bytes` long. */
  function imageBody(bytes: number): Buffer {
    const part = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      png(2, 2),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return Buffer.concat([part, Buffer.alloc(bytes - part.length, 0x20)]);
  }
  beforeAll(async () => {
    t = await startTestApp({ IMAGE_MAX_BYTES: String(IMAGE_LIMIT) });
    user = await t.signedInClient();
  });
  afterAll(() => t.close());

  it('is taken up to the file limit and its framing', async () => {
    const answer = await rawRequest(t, {
      path: '/api/images',
      headers: { 'Content-Type': contentType },
      body: imageBody(IMAGE_BODY_LIMIT),
      cookie: user.cookieHeader,
    });
    expect(answer?.status).toBe(201);
  });

  it('is refused up front with 413 when its declared length is past that', async () => {
    const before = await written(t);
    const answer = await rawRequest(t, {
      path: '/api/images',
      headers: { 'Content-Type': contentType },
      body: Buffer.alloc(0),
      declaredLength: IMAGE_BODY_LIMIT + 1,
      cookie: user.cookieHeader,
    });
    expectClosedWith(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(await written(t)).toEqual(before);
  });

  it('is cut off with 413 as soon as more than that has arrived in chunks', async () => {
    const before = await written(t);
    // The whole image and more than the limit of epilogue, in a chunked body that never ends.
    const answer = await rawRequest(t, {
      path: '/api/images',
      headers: { 'Content-Type': contentType },
      body: imageBody(IMAGE_BODY_LIMIT + 1),
      chunked: true,
      cookie: user.cookieHeader,
    });
    expectClosedWith(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer?.body.detail).toBe('The request body is larger than a 1 KB file and its multipart framing');
    expect(await written(t)).toEqual(before);
  });
});
