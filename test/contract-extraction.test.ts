import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fillablePdf,
  fixturesDir,
  formFieldsDocx,
  keyTermsDocx,
  pdfWithManyItems,
  printedByLibreOffice,
} from './helpers/documents.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * What the import reads out of real documents: a DOCX and the PDF LibreOffice prints from it
 * give the same answer (the same text format on both sides: paragraphs, table rows, list
 * numbers, running footers), and the form fields of fillable PDFs and of DOCX files are
 * placeholders.
 */
let t: TestApp;
let user: HttpClient;

const FIXTURES = ['common-paper-mutual-nda', 'common-paper-letter-of-intent', 'bonterms-mutual-nda'];
const docxs: Record<string, Buffer> = {
  ...Object.fromEntries(FIXTURES.map((name) => [name, readFileSync(path.join(fixturesDir, `${name}.docx`))])),
  'key-terms': keyTermsDocx(),
};
let pdfs: Record<string, Buffer>;

beforeAll(async () => {
  [t, pdfs] = await Promise.all([startTestApp(), printedByLibreOffice(docxs)]);
  user = await t.signedInClient();
}, 300_000);
afterAll(() => t?.close());

interface Variable {
  name: string;
  kind: string;
  text: string;
  occurrences: number;
}

async function importContract(name: string, bytes: Buffer) {
  const response = await user.upload('/api/contracts/import', { name, bytes });
  expect(response.status, response.text).toBe(200);
  return response.body as { detectedVariables: string[]; variables: Variable[] };
}

describe('a DOCX and the PDF printed from it', () => {
  it.each([...FIXTURES, 'key-terms'])('%s: the same variables, in the same order', async (name) => {
    const fromDocx = await importContract(`${name}.docx`, docxs[name]!);
    const fromPdf = await importContract(`${name}.pdf`, pdfs[name]!);
    expect(fromDocx.variables.length).toBeGreaterThan(4);
    expect(fromPdf.variables).toEqual(fromDocx.variables);
    expect(fromPdf.detectedVariables).toEqual(fromDocx.detectedVariables);
  });

  it('reads a key-terms table, wrapped list items and a no-break space alike on both sides', async () => {
    const fromPdf = await importContract('key-terms.pdf', pdfs['key-terms']!);
    const texts = fromPdf.variables.map((v) => v.text);
    // In a table cell, in a wrapped numbered clause, after a no-break space.
    expect(texts).toEqual(
      expect.arrayContaining([
        '{effective_date}',
        '{governing_law}',
        '<<Signatory Name>>',
        '{sla_document}',
        '{notice_email}',
      ]),
    );
    // [Monthly Fee] stands in the table and in clause 1, [Customer Name] in the preamble and
    // the last line: counted on each page of the PDF as in the DOCX.
    expect(fromPdf.variables.find((v) => v.text === '[Monthly Fee]')?.occurrences).toBe(2);
    expect(fromPdf.variables.find((v) => v.text === '[Customer Name]')?.occurrences).toBe(2);
  });
});

describe('form fields', () => {
  it('a fillable PDF: each text field is a placeholder named by the field, a check box is not', async () => {
    const bytes = await fillablePdf('This agreement binds {party_name}.', [
      { name: 'Company Name', kind: 'text' },
      { name: 'effectiveDate', kind: 'text' },
      { name: 'agree_to_terms', kind: 'checkbox' },
    ]);
    const { detectedVariables, variables } = await importContract('form.pdf', bytes);
    // A field has no text on the page: its text is its name, and it stands once (its widget).
    expect(variables).toEqual([
      { name: 'company_name', kind: 'placeholder', text: 'Company Name', occurrences: 1 },
      { name: 'effective_date', kind: 'placeholder', text: 'effectiveDate', occurrences: 1 },
      { name: 'party_name', kind: 'placeholder', text: '{party_name}', occurrences: 1 },
    ]);
    expect(detectedVariables).toEqual(['company_name', 'effective_date', 'party_name']);
  });

  it('a DOCX: content controls (by tag, else alias) and merge fields (simple and complex), with the text they show', async () => {
    const { variables } = await importContract('form.docx', formFieldsDocx());
    expect(variables).toEqual([
      { name: 'client_legal_name', kind: 'placeholder', text: 'Acme Corporation', occurrences: 1 },
      { name: 'supplier_name', kind: 'placeholder', text: 'Globex Ltd', occurrences: 1 },
      { name: 'start_date', kind: 'placeholder', text: 'Click or tap to enter a date.', occurrences: 1 },
      { name: 'first_name', kind: 'placeholder', text: '«FirstName»', occurrences: 1 },
      { name: 'last_name', kind: 'placeholder', text: '«Last Name»', occurrences: 1 },
    ]);
  });
});

describe('bounds', () => {
  it('a PDF page of 100,000 text items is read, and past CONTRACT_MAX_TEXT_CHARS refused with 413', async () => {
    const bytes = await pdfWithManyItems('Between {party_a} and {party_b}.', 100_000);
    expect((await importContract('many.pdf', bytes)).detectedVariables).toEqual(['party_a', 'party_b']);

    const strict = await startTestApp({ CONTRACT_MAX_TEXT_CHARS: '50000' });
    try {
      const client = await strict.signedInClient();
      const problem = expectProblem(
        await client.upload('/api/contracts/import', { name: 'many.pdf', bytes }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expect(problem.detail).toMatch('longer than 50000 characters');
    } finally {
      await strict.close();
    }
  }, 120_000);
});
