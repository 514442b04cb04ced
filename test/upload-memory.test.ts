import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { png } from './helpers/files.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { parseAnswer, type RawAnswer } from './helpers/raw-answer.ts';
import { expectRetryLater } from './helpers/refusals.ts';
import { startTestApp, type TestApp, uploadBudgetEnv } from './helpers/test-app.ts';

/**
 * The memory uploads hold (issue 29, finding 3), end to end over real sockets: a multipart
 * body is charged to the upload budget as its bytes arrive (an upload holds at most 64 KiB
 * before they do), each organization and each caller may hold at most a share of the budget,
 * and a body that stops arriving is cut off. Stalled uploads are raw connections that send
 * part of a body and wait; sizes are counted in body bytes, framing included, as the
 * service counts them.
 */
const MiB = 1024 * 1024;
/** The least a share may be: one upload of the largest size (a 10 MiB contract). */
const SHARE = 10 * MiB;
/** What an upload holds before its bytes arrive. */
const ADVANCE = 64 * 1024;
/** The longest body a contract import may declare: its file limit and 64 KiB of framing. */
const CONTRACT_BODY = SHARE + 64 * 1024;

const BOUNDARY = 'upload-memory-test';
/** The head of the one part, as a browser sends it. */
function partHead(filename: string, type: string): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
}

/** A whole multipart body with a small PNG: a one-letter longer name makes it one byte longer. */
function imageBody(filename: string) {
  return Buffer.concat([partHead(filename, 'image/png'), png(2, 2), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}
const IMAGE_BYTES = imageBody('a.png').length;

function uploadImage(client: HttpClient, filename: string) {
  return client.request('POST', '/api/images', {
    body: imageBody(filename),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
}

/**
 * A contract import on its own connection that declares `declaredBytes` of body and sends only
 * the first `sentBytes` (the part's head, then file bytes), then waits. `closed` is the
 * server's answer once it has closed the connection (null when it closed without one).
 */
function stalledUpload(app: TestApp, client: HttpClient, sentBytes: number, declaredBytes = CONTRACT_BODY) {
  const head = partHead('held.pdf', 'application/pdf');
  const body = Buffer.concat([head, Buffer.alloc(Math.max(0, sentBytes - head.length), 0x25)]).subarray(
    0,
    sentBytes,
  );
  const { hostname, port } = new URL(app.url);
  const socket = net.connect(Number(port), hostname);
  socket.write(
    `POST /api/contracts/import HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${client.cookieHeader}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declaredBytes}\r\n\r\n`,
  );
  socket.write(body);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  // The server may reset a connection it has answered; the answer is what counts.
  socket.on('error', () => {});
  const closed = new Promise<RawAnswer | null>((resolve) => {
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
  return {
    closed,
    /** Whether the server has said anything yet. */
    answered: () => chunks.length > 0,
    abort: () => socket.destroy(),
  };
}

/** Image rows and `image.uploaded` events of the whole database: a refused upload adds neither. */
async function imagesWritten(app: TestApp): Promise<number> {
  const [row] = await app.app.database.orm.em.getConnection().execute<{ images: number; events: number }[]>(
    `select (select count(*) from image)::int as images,
       (select count(*) from event where event_type = 'image.uploaded')::int as events`,
  );
  expect(row!.images).toBe(row!.events);
  return row!.images;
}

/** Waits until the service has charged every byte the stalled uploads sent (no more, no less). */
async function charged(app: TestApp, bytes: number): Promise<void> {
  await expect.poll(() => app.app.edge.uploadBudget.used, { timeout: 10_000 }).toBe(bytes);
}

const stalls: ReturnType<typeof stalledUpload>[] = [];
function stall(...args: Parameters<typeof stalledUpload>) {
  const upload = stalledUpload(...args);
  stalls.push(upload);
  return upload;
}
/** Ends the test's stalled uploads; each gives back what it held. */
async function abortStalls(app: TestApp) {
  for (const upload of stalls.splice(0)) upload.abort();
  await charged(app, 0);
}

describe('finding 3: ten idle uploads of one organization', () => {
  // Room for exactly ten contract imports as each declares them (10 MiB and 64 KiB of framing):
  // had a declared length been reserved up front, ten idle ones would have left none.
  const DECLARED = CONTRACT_BODY;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      UPLOAD_MEMORY_BUDGET_BYTES: String(10 * DECLARED),
      UPLOAD_IDLE_TIMEOUT_MS: '600000',
    });
  });
  afterEach(() => abortStalls(t));
  afterAll(() => t.close());

  it("hold 64 KiB each, and another organization's small image upload is taken", async () => {
    const a = await t.signedInClient();
    const b = await t.signedInClient();
    const head = partHead('held.pdf', 'application/pdf').length;
    const budget = t.app.edge.uploadBudget;
    const idle = Array.from({ length: 10 }, () => stall(t, a, head, DECLARED));
    // All ten have been taken in, each holding its advance and not the 10 MiB it declared.
    await charged(t, 10 * ADVANCE);

    const before = await imagesWritten(t);
    const image = await uploadImage(b, 'small.png');
    expect(image.status, image.text).toBe(201);
    expect(await imagesWritten(t)).toBe(before + 1);
    // A's uploads are still waiting for their bytes, unanswered: nothing of theirs was refused.
    expect(idle.filter((upload) => upload.answered())).toEqual([]);
    expect(budget.used).toBe(10 * ADVANCE);
  });
});

describe('shares of the upload budget', () => {
  let t: TestApp;
  /** Three callers of one organization, and one caller of each of two others. */
  let a1: HttpClient;
  let a2: HttpClient;
  let a3: HttpClient;
  let b: HttpClient;
  let c: HttpClient;
  beforeAll(async () => {
    t = await startTestApp(uploadBudgetEnv(SHARE));
    a1 = await t.signedInClient('A');
    a2 = await t.signedInClient('A', 'member');
    a3 = await t.signedInClient('A', 'member');
    b = await t.signedInClient('B');
    c = await t.signedInClient('C');
  });
  afterEach(() => abortStalls(t));
  afterAll(() => t.close());

  it("a caller's uploads hold at most UPLOAD_MEMORY_PER_CALLER_BYTES: at the share 201, past it 429; its colleagues still upload", async () => {
    stall(t, a1, SHARE - IMAGE_BYTES);
    await charged(t, SHARE - IMAGE_BYTES);
    const before = await imagesWritten(t);

    const past = await uploadImage(a1, 'ab.png');
    const problem = expectRetryLater(past, 429, 'TOO_MANY_REQUESTS');
    expect(problem.detail).toMatch(/as much memory as one caller may/);
    expect(await imagesWritten(t)).toBe(before);

    const atShare = await uploadImage(a1, 'a.png');
    expect(atShare.status, atShare.text).toBe(201);
    const colleagues = await uploadImage(a2, 'ab.png');
    expect(colleagues.status, colleagues.text).toBe(201);
    expect(await imagesWritten(t)).toBe(before + 2);
  });

  it("an organization's uploads hold at most UPLOAD_MEMORY_PER_ORGANIZATION_BYTES: at the share 201, past it 429; other organizations still upload", async () => {
    stall(t, a1, SHARE);
    stall(t, a2, SHARE - IMAGE_BYTES);
    await charged(t, 2 * SHARE - IMAGE_BYTES);
    const before = await imagesWritten(t);

    const past = await uploadImage(a3, 'ab.png');
    const problem = expectRetryLater(past, 429, 'TOO_MANY_REQUESTS');
    expect(problem.detail).toMatch(/as much memory as one organization may/);
    expect(await imagesWritten(t)).toBe(before);

    const atShare = await uploadImage(a3, 'a.png');
    expect(atShare.status, atShare.text).toBe(201);
    const others = await uploadImage(b, 'ab.png');
    expect(others.status, others.text).toBe(201);
    expect(await imagesWritten(t)).toBe(before + 2);
  });

  it('a share is counted as the bytes arrive: an upload that passes it midway is cut off with 429 and closed', async () => {
    const room = 4 * ADVANCE;
    stall(t, a1, SHARE - room);
    await charged(t, SHARE - room);

    // Its first 64 KiB fit, and so do the next; its last byte, one past the room, does not.
    // (Sending no more than that, all of it is read: the answer is not lost to a reset.)
    const passing = stall(t, a1, room + 1);
    const answer = await passing.closed;
    expect(answer?.status).toBe(429);
    expect(answer?.headers.connection).toBe('close');
    expect(answer?.body).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    // What it had been charged is back at once: only the first upload holds anything.
    expect(t.app.edge.uploadBudget.used).toBe(SHARE - room);
  });

  it('past the whole budget (every organization within its share) an upload is 503 with Retry-After, and nothing is written', async () => {
    stall(t, a1, SHARE);
    stall(t, a2, SHARE);
    stall(t, b, SHARE - IMAGE_BYTES);
    await charged(t, 3 * SHARE - IMAGE_BYTES);
    const before = await imagesWritten(t);

    const past = await uploadImage(c, 'ab.png');
    const problem = expectRetryLater(past, 503, 'SERVICE_UNAVAILABLE');
    expect(problem.detail).toBe('Too many uploads are in progress; try again shortly');
    expect(await imagesWritten(t)).toBe(before);

    const fits = await uploadImage(c, 'a.png');
    expect(fits.status, fits.text).toBe(201);
  });
});

describe('UPLOAD_IDLE_TIMEOUT_MS', () => {
  const BUDGET = SHARE;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ UPLOAD_MEMORY_BUDGET_BYTES: String(BUDGET), UPLOAD_IDLE_TIMEOUT_MS: '1000' });
  });
  afterEach(() => abortStalls(t));
  afterAll(() => t.close());

  it('a body from which nothing arrives is cut off with 408, and what it held is given back at once', async () => {
    const user = await t.signedInClient();
    const before = await imagesWritten(t);
    // The most the uploads held at any time (the budget's own count, read after each charge).
    const budget = t.app.edge.uploadBudget;
    let peak = 0;
    const tryCharge = budget.tryCharge;
    budget.tryCharge = (owner, bytes) => {
      const refused = tryCharge.call(budget, owner, bytes);
      peak = Math.max(peak, budget.used);
      return refused;
    };
    try {
      // One never sends a byte of its body (it holds its advance); one sends and stops: together
      // all of the budget but what one image needs.
      const silent = stall(t, user, 0);
      const stopped = stall(t, user, BUDGET - ADVANCE - IMAGE_BYTES);
      for (const upload of [silent, stopped]) {
        const answer = await upload.closed;
        expect(answer?.status).toBe(408);
        expect(answer?.headers.connection).toBe('close');
        expect(answer?.headers['content-type']).toBe('application/problem+json');
        expect(answer?.body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
        expect(answer?.body.detail).toMatch(/no bytes arrived for 1000 ms/);
      }
      expect(peak).toBe(BUDGET - IMAGE_BYTES);
      expect(budget.used).toBe(0);

      // An image one byte larger than what was left beside them is taken now.
      const after = await uploadImage(user, 'ab.png');
      expect(after.status, after.text).toBe(201);
      expect(await imagesWritten(t)).toBe(before + 1);
    } finally {
      budget.tryCharge = tryCharge;
    }
  });

  it('the upload routes document these answers (408, 429, 503) in the OpenAPI document', async () => {
    const document = (await t.client().get('/api/openapi.json')).body;
    for (const path of ['/contracts/import', '/images']) {
      const responses = document.paths[path].post.responses;
      for (const status of ['408', '429', '503']) {
        expect(responses[status], `${path} ${status}`).toEqual({
          $ref: `#/components/responses/Problem${status}`,
        });
      }
    }
    expect(document.components.responses.Problem408.description).toMatch(/UPLOAD_IDLE_TIMEOUT_MS/);
    expect(document.components.responses.Problem429.description).toMatch(/share of upload memory/);
  });
});
