import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { docxWithBody, printedByLibreOffice, wp } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient;

beforeAll(async () => ({ t, user } = await startSignedIn()));
afterAll(() => t.close());

/** A real Word document with one paragraph per line of `lines`. */
const docx = (lines: string[]) => docxWithBody(lines.map((line) => wp(line)).join(''));

/** A filled-in order form: a cover page of labelled values, terms, and a signature block. */
const ORDER_FORM = [
  'ORDER FORM',
  'Initech Software LLC (the "Provider") and',
  'Globex Corporation (the "Customer") agree as follows.',
  'Effective Date: March 1, 2026',
  'Subscription Term: 12 months',
  'Fees: $48,000 per year',
  'Payment Terms: Net 30 days',
  'Customer Email: billing@globex.example',
  '1. Payment. Customer pays within forty-five (45) days.',
  '2. Confidentiality. Return materials within ten (10) days of notice.',
  '3. Law. Governed by the laws of the State of California.',
  'Source: GLOBEX CORP, 8-K, 3/2/2026',
  'GLOBEX CORPORATION',
  'By: /s/ Hank Scorpio',
  'Title: Chief Executive Officer',
  'Source: GLOBEX CORP, 8-K, 3/2/2026',
];

const EXPECTED = [
  { name: 'provider_name', kind: 'value', text: 'Initech Software LLC', occurrences: 1 },
  { name: 'customer_name', kind: 'value', text: 'Globex Corporation', occurrences: 1 },
  { name: 'effective_date', kind: 'value', text: 'March 1, 2026', occurrences: 1 },
  { name: 'subscription_term', kind: 'value', text: '12 months', occurrences: 1 },
  // The amount, the smallest span carrying the value: "per year" is the line's wording.
  { name: 'fees', kind: 'value', text: '$48,000', occurrences: 1 },
  { name: 'payment_terms', kind: 'value', text: 'Net 30 days', occurrences: 1 },
  { name: 'customer_email', kind: 'value', text: 'billing@globex.example', occurrences: 1 },
  { name: 'duration', kind: 'value', text: 'forty-five (45) days', occurrences: 1 },
  { name: 'duration_2', kind: 'value', text: 'ten (10) days', occurrences: 1 },
  { name: 'governing_law', kind: 'value', text: 'State of California', occurrences: 1 },
  { name: 'customer_name_2', kind: 'value', text: 'GLOBEX CORPORATION', occurrences: 1 },
  { name: 'customer_signatory_name', kind: 'value', text: 'Hank Scorpio', occurrences: 1 },
  { name: 'customer_signatory_title', kind: 'value', text: 'Chief Executive Officer', occurrences: 1 },
];

describe('POST /api/contracts/import: a filled-in contract', () => {
  it.each(['docx', 'pdf'])(
    'answers the deal values of an order form given as %s, named from their context',
    async (type) => {
      // The PDF as users make it: the same DOCX printed by LibreOffice.
      const bytes =
        type === 'docx' ? docx(ORDER_FORM) : (await printedByLibreOffice({ form: docx(ORDER_FORM) })).form!;
      const response = await user.upload('/api/contracts/import', { name: `order-form.${type}`, bytes });
      expect(response.status, response.text).toBe(200);
      expect(response.body.variables).toEqual(EXPECTED);
      expect(response.body.detectedVariables).toEqual(EXPECTED.map((v) => v.name));
    },
  );
});
