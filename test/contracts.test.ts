import { unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessCaller } from '../app/in-process.ts';
import { findAuth } from '../domain/auth/callers.ts';
import { contractFixture, docxWithText, enlargedDocx, pdf } from './helpers/documents.ts';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startOpenAiStandIn } from './helpers/openai-stand-in.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: Awaited<ReturnType<TestApp['signedInClient']>>;

beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient();
});
afterAll(() => t.close());

const importFile = (client: HttpClient, name: string, bytes: Buffer) =>
  client.upload('/api/contracts/import', { name, bytes });
const imports = async () =>
  (await user.get('/api/notifications/events?eventType=contract.imported&limit=100')).body.pagination
    .total as number;

describe('POST /api/contracts/import', () => {
  it.each(['common-paper-letter-of-intent', 'common-paper-mutual-nda', 'bonterms-mutual-nda'])(
    'finds the fields of the %s template, as DOCX and as PDF, in order of first appearance',
    async (name) => {
      const { docx, text, present } = await contractFixture(name);
      expect(present.length).toBeGreaterThan(5);
      for (const [file, bytes] of [
        [`${name}.docx`, docx],
        [`${name}.pdf`, await pdf(text)],
      ] as const) {
        const response = await importFile(user, file, bytes);
        expect(response.status, response.text).toBe(200);
        const detected: string[] = response.body.detectedVariables;
        expect(
          detected.filter((v) => present.includes(v)),
          `${file}: ${JSON.stringify(detected)}`,
        ).toEqual(present);
        expect(new Set(detected).size).toBe(detected.length);
        for (const variable of detected) expect(variable).toMatch(/^[a-z][a-z0-9_]*$/);
      }
    },
  );

  it('finds each placeholder style real contracts use', async () => {
    const text = [
      'This Agreement is made on [Effective Date] between {{company_name}} and <<Customer Name>>.',
      'The supplier, «SupplierLegalName», agrees to deliver {product} by the date below.',
      'Purchase price: ________',
      'Governing Law: ____________',
      'See section [3] and tick [x] where it applies; {{ company_name }} signs.',
    ].join('\n');
    const response = await importFile(user, 'styles.pdf', await pdf(text));
    expect(response.body.detectedVariables).toEqual([
      'effective_date',
      'company_name',
      'customer_name',
      'supplier_legal_name',
      'product',
      'purchase_price',
      'governing_law',
    ]);
  });

  it('writes contract.imported with what was found', async () => {
    const before = await imports();
    await importFile(user, 'one.pdf', await pdf('Between {party_a} and {party_b}.'));
    const [event] = (await user.get('/api/notifications/events?eventType=contract.imported&limit=1')).body
      .events;
    expect(event.payload).toMatchObject({
      filename: 'one.pdf',
      analyzer: 'offline',
      detectedVariables: ['party_a', 'party_b'],
    });
    expect(await imports()).toBe(before + 1);
  });

  it('judges by content: 415 for a ZIP named .pdf, an image, or text; nothing recorded', async () => {
    const before = await imports();
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, ...Buffer.alloc(60)]);
    expectProblem(await importFile(user, 'contract.pdf', zip), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(await importFile(user, 'contract.docx', png(2, 2)), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(
      await importFile(user, 'contract.pdf', Buffer.from('Between {a} and {b}.')),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expect(await imports()).toBe(before);
  });

  it('reads a DOCX as a DOCX when its first kilobyte holds "%PDF-" (the type is judged once, by the import)', async () => {
    // Stored, not deflated, its document part first: the text's `%PDF-` stands in the first bytes
    // (the reader looked for it there, and read such a DOCX as a PDF: 400).
    const { 'word/document.xml': body, ...parts } = unzipSync(
      docxWithText('%PDF-1.7 Between {party_a} and {party_b}.'),
    );
    const docx = Buffer.from(zipSync({ 'word/document.xml': body!, ...parts }, { level: 0 }));
    expect(docx.subarray(0, 1024).includes('%PDF-')).toBe(true);
    const response = await importFile(user, 'contract.docx', docx);
    expect(response.status, response.text).toBe(200);
    expect(response.body.detectedVariables).toEqual(['party_a', 'party_b']);
  });

  it('answers 400 for a damaged or encrypted file, or a missing part', async () => {
    const corrupt = Buffer.from('%PDF-1.7\n1 0 obj garbage that is not a PDF body\n%%EOF');
    expect(expectProblem(await importFile(user, 'bad.pdf', corrupt), 400, 'BAD_REQUEST').detail).toMatch(
      /damaged or encrypted/,
    );
    const encrypted = await pdf('Between {a} and {b}.', { userPassword: 'secret' });
    expectProblem(await importFile(user, 'locked.pdf', encrypted), 400, 'BAD_REQUEST');
    const form = new FormData();
    form.append('note', 'no file');
    expectProblem(await user.request('POST', '/api/contracts/import', { body: form }), 400, 'BAD_REQUEST');
  });

  it('answers 413 past 10 MB, while the upload streams, saying the limit as the docs write it', async () => {
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024 + 1)]);
    const { detail } = expectProblem(await importFile(user, 'big.pdf', big), 413, 'PAYLOAD_TOO_LARGE');
    // Not the byte count of the limit with its multipart framing (10551296).
    expect(detail).toMatch(/\b10 MB\b/);
    expect(detail).not.toMatch(/\d{5}/);
  });

  it('holds an in-process caller (an operator script) to the same 10 MB, with nothing recorded', async () => {
    const before = await imports();
    const auth = await findAuth(t.app.database.orm.em.fork(), user.userId);
    const caller = createInProcessCaller(t.app.database.orm, t.app.services, auth);
    const big = new File(
      [Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(10 * 1024 * 1024 + 1)])],
      'big.pdf',
    );
    await expect(caller.contracts.importContract({ file: big })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Contracts may be at most 10 MB',
    });
    expect(await imports()).toBe(before);
  });

  it('keeps serving other requests while a large document is parsed', async () => {
    // 90 copies: 136,000 XML elements, under the 150,000 a DOCX may hold (a few seconds' parse).
    const large = enlargedDocx('common-paper-mutual-nda', 90);
    let settled = false;
    const started = performance.now();
    const parsing = importFile(user, 'large.docx', large).finally(() => {
      settled = true;
    });
    // Health checks back to back for as long as the import runs: if parsing held the event
    // loop, one gap between answers would span most of the import.
    const answeredAt: number[] = [];
    while (!settled) {
      expect((await t.client().get('/healthz')).status).toBe(200);
      answeredAt.push(performance.now());
    }
    const duration = performance.now() - started;
    expect((await parsing).status).toBe(200);
    const gaps = answeredAt.map((at, i) => at - (i === 0 ? started : answeredAt[i - 1]!));
    expect(answeredAt.length).toBeGreaterThan(3);
    expect(Math.max(...gaps)).toBeLessThan(duration / 2);
  });
});

describe('the AI analyzer', () => {
  it('asks an OpenAI-compatible endpoint for structured output and keeps the variables that stand in the text', async () => {
    const ai = await startOpenAiStandIn(() => ({
      kind: 'answer',
      variables: [
        { name: 'Company Name', kind: 'value', text: 'Acme Inc.' },
        { name: 'effective_date', kind: 'value', text: '1 May 2026' },
        // Not in the document (a paraphrase): dropped.
        { name: 'supplier', kind: 'value', text: 'Globex Corporation' },
        { name: 'purchasePrice', kind: 'value', text: '$10,000' },
        { name: 'company_name', kind: 'value', text: 'Acme Inc.' },
        { name: 'nonsense', kind: 'sentence', text: 'Globex' },
      ],
    }));
    const app = await startTestApp({
      CONTRACT_AI_URL: ai.url,
      CONTRACT_AI_KEY: 'sk-test-secret',
      CONTRACT_AI_MODEL: 'tiny',
    });
    try {
      const client = await app.signedInClient();
      const response = await importFile(
        client,
        'filled.pdf',
        await pdf('Acme Inc. buys from Globex on 1 May 2026 for $10,000.'),
      );
      expect(response.body.detectedVariables.slice(0, 3)).toEqual([
        'company_name',
        'effective_date',
        'purchase_price',
      ]);
      expect(response.body.variables.slice(0, 3)).toEqual([
        { name: 'company_name', kind: 'value', text: 'Acme Inc.', occurrences: 1 },
        { name: 'effective_date', kind: 'value', text: '1 May 2026', occurrences: 1 },
        { name: 'purchase_price', kind: 'value', text: '$10,000', occurrences: 1 },
      ]);
      expect(response.body.variables.map((v: { text: string }) => v.text)).not.toContain(
        'Globex Corporation',
      );
      const [request] = ai.requests;
      expect(request!.headers.authorization).toBe('Bearer sk-test-secret');
      expect(request!.body.model).toBe('tiny');
      expect(request!.body.response_format.type).toBe('json_schema');
      expect(request!.body.messages.at(-1).content).toContain('Acme Inc. buys from Globex');
    } finally {
      await app.close();
      await ai.close();
    }
  });

  it.each([
    [
      'answers 500',
      () => ({ kind: 'error' as const, status: 500, message: 'The server had an error' }),
      /answered 500: The server had an error/,
    ],
    [
      'rejects the key (401)',
      () => ({ kind: 'error' as const, status: 401, message: 'Incorrect API key provided' }),
      /answered 401/,
    ],
    ['does not answer in time', () => ({ kind: 'hang' as const }), /aborted|timeout/i],
  ])(
    'falls back to the offline analysis when the endpoint %s, and logs why (without the key)',
    async (_label, behaviour, reason) => {
      const ai = await startOpenAiStandIn(behaviour);
      const app = await startTestApp({
        CONTRACT_AI_URL: ai.url,
        CONTRACT_AI_KEY: 'sk-never-logged',
        CONTRACT_AI_TIMEOUT_MS: '300',
      });
      try {
        const client = await app.signedInClient();
        const response = await importFile(client, 'c.pdf', await pdf('Between {party_a} and [Party B].'));
        expect(response.status).toBe(200);
        expect(response.body.detectedVariables).toEqual(['party_a', 'party_b']);
        const warning = app
          .logs()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((l) => l.msg?.startsWith('contract AI analysis failed'));
        expect(warning?.reason).toMatch(reason);
        expect(app.logs()).not.toContain('sk-never-logged');
      } finally {
        await app.close();
        await ai.close();
      }
    },
  );
});
