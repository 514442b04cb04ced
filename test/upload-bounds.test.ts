import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxWithText, enlargedDocx } from './helpers/documents.ts';
import { countExtractions } from './helpers/extractions.ts';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { expectRetryLater } from './helpers/refusals.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The bounds an upload meets on its way in, each end to end: the answer, and that a refused
 * upload leaves nothing behind (no row, no object, no event). Each bound is set small in the
 * app's config so that a test can reach it.
 */
const BUDGET_BYTES = 10 * 1024 * 1024;
const MAX_TEXT_CHARS = 1000;

let t: TestApp;
let user: HttpClient;

beforeAll(async () => {
  t = await startTestApp({
    DOCUMENT_CONCURRENCY: '1',
    DOCUMENT_QUEUE_MAX: '1',
    UPLOAD_MEMORY_BUDGET_BYTES: String(BUDGET_BYTES),
    // The held upload below waits as long as its test needs (test/upload-memory.test.ts cuts one off).
    UPLOAD_IDLE_TIMEOUT_MS: '600000',
  });
  user = await t.signedInClient();
});
afterAll(() => t.close());

const importContract = (client: HttpClient, name: string, bytes: Buffer) =>
  client.upload('/api/contracts/import', { name, bytes });

/** How many events of `eventType` the caller's organization has. */
async function eventCount(client: HttpClient, eventType: string): Promise<number> {
  const response = await client.get(`/api/notifications/events?eventType=${eventType}&limit=1`);
  expect(response.status, response.text).toBe(200);
  return response.body.pagination.total;
}

async function imageRows(app: TestApp): Promise<{ filename: string; object_key: string }[]> {
  return app.app.database.orm.em
    .getConnection()
    .execute('select filename, object_key from image order by created_at, id');
}

describe('file names', () => {
  it('a UTF-8 file name (résumé.png) is kept as sent, in the answer and in the stored row', async () => {
    const response = await user.upload('/api/images', { name: 'résumé.png', bytes: png(4, 4) });
    expect(response.status, response.text).toBe(201);
    expect(response.body.filename).toBe('résumé.png');
    const [row] = (await imageRows(t)).filter((r) => r.object_key === response.body.objectKey);
    expect(row?.filename).toBe('résumé.png');
    const listed = (await user.get('/api/images')).body.images;
    expect(listed.find((i: { id: string }) => i.id === response.body.id)?.filename).toBe('résumé.png');
  });
});

describe('CONTRACT_MAX_TEXT_CHARS', () => {
  it('a contract whose text is longer is 413, and nothing is recorded', async () => {
    const app = await startTestApp({ CONTRACT_MAX_TEXT_CHARS: String(MAX_TEXT_CHARS) });
    try {
      const client = await app.signedInClient();
      const before = await eventCount(client, 'contract.imported');
      const long = docxWithText(`Between {party_a} and {party_b}. ${'word '.repeat(MAX_TEXT_CHARS / 5)}`);
      const problem = expectProblem(
        await importContract(client, 'long.docx', long),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expect(problem.detail).toMatch(`longer than ${MAX_TEXT_CHARS} characters`);
      expect(await eventCount(client, 'contract.imported')).toBe(before);

      // Well under the bound, the same contract is read.
      const short = docxWithText(`Between {party_a} and {party_b}. ${'word '.repeat(MAX_TEXT_CHARS / 10)}`);
      const response = await importContract(client, 'short.docx', short);
      expect(response.status, response.text).toBe(200);
      expect(response.body.detectedVariables).toEqual(['party_a', 'party_b']);
    } finally {
      await app.close();
    }
  });
});

describe('DOCUMENT_TIMEOUT_MS', () => {
  it('a document that takes longer to read is 422, and nothing is recorded', async () => {
    const app = await startTestApp({ DOCUMENT_TIMEOUT_MS: '100' });
    try {
      const client = await app.signedInClient();
      const before = await eventCount(client, 'contract.imported');
      const slow = enlargedDocx('common-paper-mutual-nda', 5);
      const problem = expectProblem(
        await importContract(client, 'slow.docx', slow),
        422,
        'UNPROCESSABLE_CONTENT',
      );
      expect(problem.detail).toContain('could not be analysed within ');
      expect(problem.detail).toContain(': it is too complex to read');
      expect(await eventCount(client, 'contract.imported')).toBe(before);
    } finally {
      await app.close();
    }
  });
});

describe('DOCUMENT_QUEUE_MAX', () => {
  it('with every reader busy and the waiting line full, an import is 503 with Retry-After; past its organization’s share 429; nothing is recorded', async () => {
    const before = await eventCount(user, 'contract.imported');
    const extractions = countExtractions(t);
    const other = await t.signedInClient();
    const third = await t.signedInClient();
    try {
      // Read for seconds (a worker starts, parses a long document): one organization's A reads,
      // another's B waits (one reader, one place: each organization's share is all of one).
      const document = enlargedDocx('common-paper-mutual-nda', 5);
      const reading = importContract(user, 'a.docx', document);
      await extractions.reached(1);
      const waiting = importContract(other, 'b.docx', document);
      await extractions.reached(2);

      // A third organization holds nothing: the line is full.
      const refused = await importContract(third, 'c.docx', docxWithText('Between {a} and {b}.'));
      const problem = expectRetryLater(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(problem.detail).toBe('Every contract reader is busy; try again shortly');
      // The first organization holds its share: that is what refuses it.
      const again = await importContract(user, 'd.docx', docxWithText('Between {a} and {b}.'));
      expectRetryLater(again, 429, 'TOO_MANY_REQUESTS');

      expect((await reading).status).toBe(200);
      expect((await waiting).status).toBe(200);
      expect(await eventCount(user, 'contract.imported')).toBe(before + 1);
      expect(await eventCount(third, 'contract.imported')).toBe(0);
    } finally {
      extractions.restore();
    }
  });

  it('0 means no document waits, not that none is read: a free reader still reads one', async () => {
    const app = await startTestApp({ DOCUMENT_CONCURRENCY: '1', DOCUMENT_QUEUE_MAX: '0' });
    try {
      const client = await app.signedInClient();
      const first = await importContract(client, 'one.docx', docxWithText('Between {a} and {b}.'));
      expect(first.status, first.text).toBe(200);

      const extractions = countExtractions(app);
      const reading = importContract(client, 'long.docx', enlargedDocx('common-paper-mutual-nda', 5));
      await extractions.reached(1);
      const other = await app.signedInClient();
      const refused = await importContract(other, 'two.docx', docxWithText('Between {a} and {b}.'));
      expectRetryLater(refused, 503, 'SERVICE_UNAVAILABLE');
      expect((await reading).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('UPLOAD_MEMORY_BUDGET_BYTES', () => {
  /**
   * A contract upload that declares `BUDGET_BYTES` and sends all of them but the last: the
   * bytes it holds (charged as they arrive) leave room for none more until it is aborted.
   */
  function holdTheBudget() {
    const boundary = 'held-upload';
    const request = http.request(`${t.url}/api/contracts/import`, {
      method: 'POST',
      headers: {
        cookie: user.cookieHeader,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(BUDGET_BYTES),
      },
    });
    const answered = new Promise<http.IncomingMessage | Error>((resolve) => {
      request.on('response', resolve);
      request.on('error', resolve);
    });
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.pdf"\r\n` +
        'Content-Type: application/pdf\r\n\r\n%PDF-1.7\n',
    );
    request.write(Buffer.concat([head, Buffer.alloc(BUDGET_BYTES - 1 - head.length, 0x25)]));
    return {
      answered,
      abort: () => request.destroy(),
    };
  }

  it('spent, an upload is 503 with Retry-After before it is read, and nothing is stored', async () => {
    const budget = t.app.edge.uploadBudget;
    const imagesBefore = (await imageRows(t)).length;
    const uploadsBefore = await eventCount(user, 'image.uploaded');
    const importsBefore = await eventCount(user, 'contract.imported');

    const held = holdTheBudget();
    await expect.poll(() => budget.used, { timeout: 10_000 }).toBe(BUDGET_BYTES - 1);

    const image = await user.upload('/api/images', { name: 'refused.png', bytes: png(2, 2) });
    const problem = expectRetryLater(image, 503, 'SERVICE_UNAVAILABLE');
    expect(problem.detail).toBe('Too many uploads are in progress; try again shortly');
    const contract = await importContract(user, 'refused.docx', docxWithText('Between {a} and {b}.'));
    expectRetryLater(contract, 503, 'SERVICE_UNAVAILABLE');

    expect((await imageRows(t)).length).toBe(imagesBefore);
    expect(await eventCount(user, 'image.uploaded')).toBe(uploadsBefore);
    expect(await eventCount(user, 'contract.imported')).toBe(importsBefore);

    // The held upload gives its share back when it ends, and the same upload is then taken.
    held.abort();
    await held.answered;
    await expect.poll(() => budget.used, { timeout: 10_000 }).toBe(0);
    const retried = await user.upload('/api/images', { name: 'refused.png', bytes: png(2, 2) });
    expect(retried.status, retried.text).toBe(201);
  });
});
