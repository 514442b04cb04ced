import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerTextExtractor } from '../adapters/documents/text-extractor.ts';
import { docxWithText, enlargedDocx, pdf } from './helpers/documents.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The contract readers (worker threads) are kept warm between documents: loading their
 * libraries costs as much as reading a 20-page document. One reader, and a heap small enough
 * for a long document to outgrow it, so that each test can see which reader read what.
 */
let t: TestApp;
let user: HttpClient;

beforeAll(async () => {
  t = await startTestApp({ DOCUMENT_CONCURRENCY: '1', DOCUMENT_WORKER_MEMORY_MB: '64' });
  user = await t.signedInClient();
});
afterAll(() => t.close());

const importContract = (name: string, bytes: Buffer) => user.upload('/api/contracts/import', { name, bytes });
const readers = () => (t.app.services.textExtractor as WorkerTextExtractor).readers();

describe('contract readers', () => {
  it('read documents one after another in one warm worker thread', async () => {
    const before = readers().started;
    const first = await importContract('a.docx', docxWithText('Between {party_a} and {party_b}.'));
    expect(first.status, first.text).toBe(200);
    const second = await importContract('b.pdf', await pdf('Signed by [Signatory] on [Date].'));
    expect(second.status, second.text).toBe(200);
    expect(second.body.detectedVariables).toEqual(['signatory', 'date']);
    expect(readers()).toEqual({ started: before + 1, idle: 1 });
  });

  it('after any failure, the next document is read by a fresh reader, with the answer it gets on its own', async () => {
    const small = () => docxWithText('Between {party_a} and {party_b}, on {effective_date}.');
    const alone = await importContract('small.docx', small());
    expect(alone.status, alone.text).toBe(200);

    // A document that outgrows the reader's heap, then one that is damaged.
    const failures = [
      async () => {
        const tooLarge = await importContract('long.docx', enlargedDocx('common-paper-mutual-nda', 40));
        expect(expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE').detail).toMatch('MB of memory');
      },
      async () => {
        const damaged = Buffer.from('%PDF-1.7\n1 0 obj garbage that is not a PDF body\n%%EOF');
        expectProblem(await importContract('damaged.pdf', damaged), 400, 'BAD_REQUEST');
      },
    ];
    for (const failure of failures) {
      const started = readers().started;
      await failure();
      const next = await importContract('small.docx', small());
      expect(next.status, next.text).toBe(200);
      expect(next.body).toEqual(alone.body);
      expect(readers()).toEqual({ started: started + 1, idle: 1 });
    }
  });
});
