import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { asRows, importedVariables, paragraphsAndTables, printedByLibreOffice } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Filled-in forms over HTTP: values and the blanks left as forms lay them out, beyond `Label:
 * value` lines (docs/decisions/082-values-and-placeholders-per-span.md, "Forms as they are laid
 * out"). Each document holds one pattern; each is answered alike as DOCX and as PDF, except the
 * corner marks, which LibreOffice's fonts do not print.
 */
let t: TestApp;
let user: HttpClient;

const docx = (items: (string | string[][])[]) => paragraphsAndTables(items, [4000, 5000]);

const variablesOf = async (file: string, bytes: Buffer) => asRows(await importedVariables(user, file, bytes));

/** A form whose write-in boxes are drawn with corner marks, some filled, some left. */
const CORNER_BOXES = docx([
  'Sponsorship Form',
  'Sponsor Organization: Brightline Data Systems, Inc.',
  'Title: ⎣_____________________⎦',
  'Email: ⎣_____________________⎦',
  'Effective Date: ⎣ ⎦',
  'Gold tier description:',
  '⎣__',
  'Signature: ⎣_____________________⎦',
  'Name: ⎣',
]);

const CORNER_BOX_VARIABLES = [
  ['value', 'sponsor_organization_name', 'Brightline Data Systems, Inc.'],
  ['placeholder', 'title', 'Title: ⎣_____________________⎦'],
  ['placeholder', 'email', 'Email: ⎣_____________________⎦'],
  ['placeholder', 'effective_date', 'Effective Date: ⎣ ⎦'],
  ['placeholder', 'description', '⎣__'],
  ['placeholder', 'name', 'Name: ⎣'],
];

/** Instructions where the entry goes: after a blank, and as a table's column heading. */
const INSTRUCTIONS = docx([
  'I, Olivia Chen, as an employee of ______________________ (insert Contractor Company name), agree not to disclose any information covered under this Task Order.',
  [
    ['Item', 'Please fill out here'],
    ['Name of Contractor Employee', 'Olivia Chen'],
    ['Title of Contractor Employee', 'Vice President, Engineering'],
  ],
  'Optional: Specify any preferred hashtags?',
]);

const INSTRUCTION_VARIABLES = [
  ['placeholder', 'contractor_company_name', '______________________ (insert Contractor Company name)'],
  ['value', 'name_of_contractor_employee', 'Olivia Chen'],
  ['value', 'title_of_contractor_employee', 'Vice President, Engineering'],
];

/** Label lines as forms fill them: two blanks with printed units between, a defined term after the value, a conformed signature. */
const LABEL_LINES = docx([
  'Sponsorship Allocation',
  'Foundation (general support): 80% / $7,000',
  'Project 1: Quarkiverse Tools % / $ 8,500',
  'Project: Morphia (“Project”)',
  'Exhibit A: Sponsor Guidelines',
  'Please sign: /s/ David O. Mensah Date: _______________',
]);

const LABEL_LINE_VARIABLES = [
  ['value', 'foundation_general_support', '80%'],
  ['value', 'foundation_general_support_2', '$7,000'],
  ['value', 'project_1', 'Quarkiverse Tools'],
  ['value', 'project_1_2', '8,500'],
  ['value', 'project_name', 'Morphia'],
  ['value', 'project_signatory_name', 'David O. Mensah'],
  ['placeholder', 'date', 'Date: _______________'],
];

/** Entries under a label alone on its line, people under a schedule's heading, an order's number, a cover page's parties. */
const LAID_OUT = docx([
  'The General Services Administration (GSA)',
  'and',
  'National Park Service',
  'This Statement of Work is issued under Task Order Number 47QFCA25F7156 and Executive Order No. 13526.',
  'Principal Office or Primary Address:',
  '30 St Mary Axe, London EC3A 8BF, United Kingdom',
  'Billing Address:',
  '6526 Old Brick Road, Suite 120',
  'Windermere, FL 34786',
  'Project Signatories:',
  'Grace Adeyemi',
  'Sanjay Patel',
  'Silver tier (120 chars):',
  'Provides managed Postgres hosting to engineering teams.',
  'Descriptions (must comply with our Code of Conduct):',
  'Character limits exclude whitespace and markup',
  'Schedule A',
  'Lucas Moreau, Yuki Tanaka and Thomas J. Whitaker III',
]);

const LAID_OUT_VARIABLES = [
  ['value', 'party', 'National Park Service'],
  ['value', 'task_order_number', '47QFCA25F7156'],
  ['value', 'principal_office_or_primary_address', '30 St Mary Axe, London EC3A 8BF, United Kingdom'],
  ['value', 'billing_address', '6526 Old Brick Road, Suite 120 Windermere, FL 34786'],
  ['value', 'project_signatories', 'Grace Adeyemi'],
  ['value', 'project_signatories_2', 'Sanjay Patel'],
  ['value', 'silver_tier', 'Provides managed Postgres hosting to engineering teams.'],
  ['value', 'schedule_a', 'Lucas Moreau'],
  ['value', 'schedule_a_2', 'Yuki Tanaka'],
  ['value', 'schedule_a_3', 'Thomas J. Whitaker III'],
];

/** Payment instructions run into a clause's line, an address written out part by part, a form's numbered options, a key-terms table's long labels. */
const NUMBERS_AND_OPTIONS = docx([
  'Supply Agreement',
  'This agreement is made on April 17, 2024 between Bluefin Robotics LLC and Northwind Analytics, Inc.',
  '7.4. Payment goes to the account the Supplier lists directly below: Account Number: 1,119,834 Routing Number: 2,098,176',
  'Its registered office is at 8 The Green, Suite A, in the city of Wilmington, county of New Castle, Zip Code 19901.',
  'Option 1: Direct via Open Collective',
  'Option 2: Invoice-based Payment',
  [
    ['Purchase Price', '$1.2740 per share'],
    ['Total Post-Money Shares Reserved for Option Pool', '8,324,207'],
  ],
]);

const NUMBERS_AND_OPTIONS_VARIABLES = [
  ['value', 'agreement_date', 'April 17, 2024'],
  ['value', 'party_1_name', 'Bluefin Robotics LLC'],
  ['value', 'party_2_name', 'Northwind Analytics, Inc.'],
  ['value', 'account_number', '1,119,834'],
  ['value', 'routing_number', '2,098,176'],
  ['value', 'city', 'Wilmington'],
  ['value', 'county', 'New Castle'],
  ['value', 'zip_code', '19901'],
  ['value', 'purchase_price', '$1.2740 per share'],
  ['value', 'total_post_money_shares_reserved_for_option_pool', '8,324,207'],
];

const DOCUMENTS = {
  corners: CORNER_BOXES,
  instructions: INSTRUCTIONS,
  labels: LABEL_LINES,
  layout: LAID_OUT,
  numbers: NUMBERS_AND_OPTIONS,
};
let pdfs: Record<string, Buffer>;

beforeAll(async () => {
  ({ t, user } = await startSignedIn());
  pdfs = await printedByLibreOffice(DOCUMENTS);
}, 240_000);
afterAll(() => t.close());

describe('POST /api/contracts/import: filled-in forms as they are laid out', () => {
  it('reads write-in boxes drawn with corner marks as blanks, labelled or not, and no signature box', async () => {
    expect(await variablesOf('corners.docx', CORNER_BOXES)).toEqual(CORNER_BOX_VARIABLES);
    // LibreOffice's fonts have no corner glyph: it prints the glyphs apart from the labels, whose
    // underscores are read as labelled blanks.
    const pdf = await variablesOf('corners.pdf', pdfs.corners!);
    const blanks = pdf.filter(([kind]) => kind === 'placeholder').map(([, name]) => name);
    expect(blanks).toEqual(expect.arrayContaining(['title', 'email']));
  });

  it.each([
    [
      'an instruction after a blank names it, and a prompt where the entry goes is no value',
      'instructions',
      INSTRUCTION_VARIABLES,
    ],
    [
      'label lines: printed units between two blanks, a definition after the value, a caption, a conformed signature beside a blank date',
      'labels',
      LABEL_LINE_VARIABLES,
    ],
    [
      'entries under a label alone, people under a heading, an order’s number, a cover page’s parties',
      'layout',
      LAID_OUT_VARIABLES,
    ],
    [
      'an account’s and a routing number in a clause’s line, an address’s city, county and ZIP code in words, a numbered option’s caption as no value, a key-terms row’s label of seven words',
      'numbers',
      NUMBERS_AND_OPTIONS_VARIABLES,
    ],
  ] as const)('answers %s, as DOCX and as PDF', async (_label, key, expected) => {
    expect(await variablesOf(`${key}.docx`, DOCUMENTS[key])).toEqual(expected);
    expect(await variablesOf(`${key}.pdf`, pdfs[key]!)).toEqual(expected);
  });
});
