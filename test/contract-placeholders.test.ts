import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { docxWithBody, pdf, wp } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { LONG_DESCRIPTION_LINES, LONG_DESCRIPTION_VARIABLES } from './helpers/long-descriptions.ts';
import type { TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient;

beforeAll(async () => ({ t, user } = await startSignedIn()));
afterAll(() => t.close());

/** A real Word document with one paragraph per line of `lines`. */
const docx = (lines: string[]) => docxWithBody(lines.map((line) => wp(line)).join(''));

interface Variable {
  name: string;
  kind: string;
  text: string;
  occurrences: number;
}

/** The answer's variables as `[kind, name, text]`, white space in `text` collapsed (a PDF wraps long lines). */
async function variablesOf(file: string, bytes: Buffer): Promise<string[][]> {
  const response = await user.upload('/api/contracts/import', { name: file, bytes });
  expect(response.status, response.text).toBe(200);
  const variables: Variable[] = response.body.variables;
  expect(response.body.detectedVariables).toEqual([...new Set(variables.map((v) => v.name))]);
  return variables.map((v) => [v.kind, v.name, v.text.replace(/\s+/g, ' ')]);
}

const TEMPLATE_LANGUAGES = [
  'Order form between {company} and {{customer_name}}, billed to {{ customer_name }} at {{customer.address}}.',
  'Total due: {{ total | currency }}. Supplier: <<Supplier Name>>, represented by «SignatoryName».',
  '{IF has_pilot}The pilot runs for {pilot_days} days.{END-IF}',
  '{FOR line IN order_lines}{line.product} at {$line.price}{END-FOR line}',
  '{{#if auto_renew}}This order renews each year.{{else}}This order ends.{{/if}}',
  '{% if deal.discounted %}A discount applies.{% endif %}',
  '{#fees}{label}: {amount}{/fees}',
  'Data sample: {"id": 1} and code { return x; } are no placeholders.',
  'Data held by the <DEPARTMENT> of the <University, Country>; no field: <PAGE>, <b>bold</b>, <jo@acme.io>, <https://acme.io>.',
  'French quotes are no field: le Client, ci-après dénommé « le Client », signe.',
];

const TEMPLATE_LANGUAGE_VARIABLES = [
  ['placeholder', 'company', '{company}'],
  ['placeholder', 'customer_name', '{{customer_name}}'],
  ['placeholder', 'customer_name', '{{ customer_name }}'],
  ['placeholder', 'customer_address', '{{customer.address}}'],
  ['placeholder', 'total', '{{ total | currency }}'],
  ['placeholder', 'supplier_name', '<<Supplier Name>>'],
  ['placeholder', 'signatory_name', '«SignatoryName»'],
  ['condition', 'has_pilot', '{IF has_pilot}'],
  ['placeholder', 'pilot_days', '{pilot_days}'],
  ['list', 'order_lines', '{FOR line IN order_lines}'],
  ['placeholder', 'order_lines_product', '{line.product}'],
  ['placeholder', 'order_lines_price', '{$line.price}'],
  ['condition', 'auto_renew', '{{#if auto_renew}}'],
  ['condition', 'deal_discounted', '{% if deal.discounted %}'],
  ['list', 'fees', '{#fees}'],
  ['placeholder', 'label', '{label}'],
  ['placeholder', 'amount', '{amount}'],
  ['placeholder', 'department', '<DEPARTMENT>'],
  ['placeholder', 'university_country', '<University, Country>'],
];

const BRACKETS_AND_BLANKS = [
  'This Employment Agreement is made on [Effective Date] between [EMPLOYER NAME] and [insert name of Employee].',
  ...LONG_DESCRIPTION_LINES,
  'Base salary: $[_____] per year. Signing bonus: [•]',
  'Start date: ________',
  'Work location: [__________]',
  '[The Company shall reimburse the Employee for reasonable relocation expenses.]',
  'See [1]. [ ] Full time [x] Part time. [Reserved] [Signature page follows]',
];

const BRACKET_AND_BLANK_VARIABLES = [
  ['placeholder', 'effective_date', '[Effective Date]'],
  ['placeholder', 'employer_name', '[EMPLOYER NAME]'],
  ['placeholder', 'employee_name', '[insert name of Employee]'],
  ...LONG_DESCRIPTION_VARIABLES,
  ['placeholder', 'base_salary', 'Base salary: $[_____]'],
  ['placeholder', 'signing_bonus', 'Signing bonus: [•]'],
  ['placeholder', 'start_date', 'Start date: ________'],
  ['placeholder', 'work_location', 'Work location: [__________]'],
];

/** Merge fields, blanks drawn in the shape of what they ask for, and brackets left empty. */
const MERGE_FIELDS_AND_SHAPES = [
  'This Agreement is made between [          ] (the "Contractor") and [Company Name] (the "Company").',
  'The fee is $[ ] per month. [ ] Monthly [  ] Yearly',
  'Company address: %%COMPANY_ADDRESS%%. Contractor address: $CONTRACTOR_ADDRESS$.',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: `${name}` is the placeholder convention under test
  'Start date: __START_DATE__. Manager: #MANAGER_NAME#. Renewal: ${renewal_period}. Notice: <notice_period>.',
  'Project: [[Project Name]]',
  'None of $5$, #1, __init, 100%% sure or <b>bold</b> is a field.',
  'Phone: (___) ___-____',
  'Dated this ____ day of __________, 20__, and first used __/__/____.',
  'Functie: …',
  'Nom : ..........',
  'Andere gegevens ter identificatie van de organisatie:',
  '…',
  'The parties agree … to this. Section 1 .......... 5',
];

const MERGE_FIELD_AND_SHAPE_VARIABLES = [
  ['placeholder', 'contractor_name', '[ ]'],
  ['placeholder', 'company_name', '[Company Name]'],
  ['placeholder', 'fee', '$[ ]'],
  ['placeholder', 'company_address', '%%COMPANY_ADDRESS%%'],
  ['placeholder', 'contractor_address', '$CONTRACTOR_ADDRESS$'],
  ['placeholder', 'start_date', '__START_DATE__'],
  ['placeholder', 'manager_name', '#MANAGER_NAME#'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: `${name}` is the placeholder convention under test
  ['placeholder', 'renewal_period', '${renewal_period}'],
  ['placeholder', 'notice_period', '<notice_period>'],
  ['placeholder', 'project_name', '[[Project Name]]'],
  ['placeholder', 'phone', 'Phone: (___) ___-____'],
  ['placeholder', 'date', '____ day of __________, 20__'],
  ['placeholder', 'date', '__/__/____'],
  ['placeholder', 'functie', 'Functie: …'],
  ['placeholder', 'nom', 'Nom : ..........'],
  ['placeholder', 'andere_gegevens_ter_identificatie_van_de_organisatie', '…'],
];

describe('POST /api/contracts/import: placeholders and directives', () => {
  it.each([
    ['template languages', TEMPLATE_LANGUAGES, TEMPLATE_LANGUAGE_VARIABLES],
    ['brackets and blanks', BRACKETS_AND_BLANKS, BRACKET_AND_BLANK_VARIABLES],
    [
      'merge fields, shaped blanks and empty brackets',
      MERGE_FIELDS_AND_SHAPES,
      MERGE_FIELD_AND_SHAPE_VARIABLES,
    ],
  ])(
    'finds the %s of a DOCX and of a PDF, directives as their subjects, and nothing else',
    async (_, lines, expected) => {
      expect(await variablesOf('template.docx', docx(lines))).toEqual(expected);
      expect(await variablesOf('template.pdf', await pdf(lines.join('\n')))).toEqual(expected);
    },
  );

  it('counts every appearance of a placeholder, and reports a directive subject once', async () => {
    const lines = [
      '{IF has_pilot}Pilot for [Customer Name].{END-IF}',
      '{IF has_pilot}[Customer Name] again.{END-IF}',
    ];
    const response = await user.upload('/api/contracts/import', { name: 'twice.docx', bytes: docx(lines) });
    expect(response.body.variables).toEqual([
      { name: 'has_pilot', kind: 'condition', text: '{IF has_pilot}', occurrences: 2 },
      { name: 'customer_name', kind: 'placeholder', text: '[Customer Name]', occurrences: 2 },
    ]);
  });
});
