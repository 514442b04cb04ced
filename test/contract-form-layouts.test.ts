import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { asRows, importedVariables, paragraphsAndTables, printedByLibreOffice } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * How forms in general lay their values out, over HTTP (docs/decisions/085-values-as-forms-lay-them-out.md):
 * each document holds a few layouts, answered alike as DOCX and as PDF.
 */
let t: TestApp;
let user: HttpClient;

const variablesOf = async (file: string, bytes: Buffer) => asRows(await importedVariables(user, file, bytes));

/** Labelled items whose answers are sentences, beside a run-in heading's clause and a form's version line. */
const LABELLED_ANSWERS = paragraphsAndTables(
  [
    'Memorandum of Understanding',
    'This Memorandum is made on April 12, 2026 between Harbor Data GmbH and Northwind Analytics, Inc.',
    [
      ['Technical Support', 'Email and chat support on business days.'],
      ['Go-Live', 'June 1, 2026.'],
    ],
    'Version: HD-MOU 2.1',
    'Security Incidents:Incidents are reported to the other party’s security center by telephone and in writing.',
    'Personnel Changes: Each party tells the other of a change of system owner or security contact promptly.',
    'Governing Law: The Memorandum shall be governed by the laws of the State of New York.',
    'Termination: This Agreement ends when either party gives notice in writing.',
  ],
  [3000, 6000],
);

/** A table whose header row names what its columns hold, under a schedule's heading. */
const COLUMN_TABLE = paragraphsAndTables(
  [
    'Schedule 1 – Community Members',
    [
      ['Full Legal Name', 'Residential Address', 'Email Address'],
      ['Amelia K. Hart', '1455 Market Street, Suite 600, San Francisco, CA 94103', 'amelia.hart@proton.com'],
      ['Fatima Al-Sayed', '1600 Amphitheatre Way, Building 4, Mountain View, CA 94043', 'fatima@proton.com'],
    ],
    'Each Community Member signs this Schedule.',
  ],
  [2500, 4000, 3000],
);

/** A cover page's table of names side by side, and a signature table's names over its captions. */
const COVER_AND_SIGNATURES = paragraphsAndTables(
  [
    'Memorandum of Understanding',
    [
      ['Permit Intake Portal (PIP)', '', 'Identity Verification Gateway (IVG)'],
      ['U.S. Small Business Administration', '', 'Bytecraft Software, Inc.'],
    ],
    'INTRODUCTION',
    'The purpose of this memorandum is to establish a management agreement regarding the connection between the two systems.',
    'I agree to the terms of this Memorandum of Understanding.',
    [
      ['Fatima Al-Sayed, U.S. Small Business Administration', '', ''],
      ['Signature', '', 'Date'],
    ],
  ],
  [6000, 500, 2500],
);

/** Registration numbers, a definition that names a person or a party, a seat in English and French, an English deed's execution. */
const RUNNING_TEXT = paragraphsAndTables([
  'FISCALLY SPONSORED COMMUNITY AGREEMENT',
  'THIS AGREEMENT is dated July 2, 2024',
  'Definitions:',
  'Community Representative means Thomas J. Whitaker III who is the authorised point of contact for the Community.',
  'Grantor means The Calder Valley Charitable Trust, a registered charity in England and Wales (charity number 1054551) and a company limited by guarantee with company number 02958002.',
  'Services means the services set out in Schedule 3.',
  'I request access to the data of the Centre for Brain Imaging Research, established at Nijmegen, Netherlands (hereinafter referred to as the NMU).',
  'Je demande l’accès aux données du Centre de neuroimagerie, établi à Liège, Belgique (ci-après dénommé le CN).',
  'Signed by Yuki Tanaka for and on behalf of OPEN LIFE SCIENCE LIMITED on December 22, 2024',
]);

const LABELLED_ANSWERS_VARIABLES = [
  ['value', 'agreement_date', 'April 12, 2026'],
  ['value', 'party_1_name', 'Harbor Data GmbH'],
  ['value', 'party_2_name', 'Northwind Analytics, Inc.'],
  ['value', 'technical_support', 'Email and chat support on business days.'],
  ['value', 'go_live', 'June 1, 2026'],
  [
    'value',
    'security_incidents',
    'Incidents are reported to the other party’s security center by telephone and in writing.',
  ],
  [
    'value',
    'personnel_changes',
    'Each party tells the other of a change of system owner or security contact promptly.',
  ],
  ['value', 'governing_law', 'State of New York'],
];

const COLUMN_VARIABLES = [
  ['value', 'full_legal_name', 'Amelia K. Hart'],
  ['value', 'residential_address', '1455 Market Street, Suite 600, San Francisco, CA 94103'],
  ['value', 'email_address', 'amelia.hart@proton.com'],
  ['value', 'full_legal_name_2', 'Fatima Al-Sayed'],
  ['value', 'residential_address_2', '1600 Amphitheatre Way, Building 4, Mountain View, CA 94043'],
  ['value', 'email_address_2', 'fatima@proton.com'],
];

const COVER_VARIABLES = [
  ['value', 'name', 'Permit Intake Portal (PIP)'],
  ['value', 'name_2', 'Identity Verification Gateway (IVG)'],
  ['value', 'name_3', 'U.S. Small Business Administration'],
  ['value', 'organization_name', 'Bytecraft Software, Inc.'],
  ['value', 'signatory_name', 'Fatima Al-Sayed'],
];

const RUNNING_TEXT_VARIABLES = [
  ['value', 'agreement_date', 'July 2, 2024'],
  ['value', 'community_representative', 'Thomas J. Whitaker III'],
  ['value', 'grantor', 'The Calder Valley Charitable Trust'],
  ['value', 'charity_number', '1054551'],
  ['value', 'company_number', '02958002'],
  ['value', 'place', 'Nijmegen, Netherlands'],
  ['value', 'place_2', 'Liège, Belgique'],
  ['value', 'signatory_name', 'Yuki Tanaka'],
  ['value', 'organization_name', 'OPEN LIFE SCIENCE LIMITED'],
  ['value', 'date', 'December 22, 2024'],
];

const DOCUMENTS = {
  answers: LABELLED_ANSWERS,
  columns: COLUMN_TABLE,
  cover: COVER_AND_SIGNATURES,
  running: RUNNING_TEXT,
};
let pdfs: Record<string, Buffer>;

beforeAll(async () => {
  ({ t, user } = await startSignedIn());
  pdfs = await printedByLibreOffice(DOCUMENTS);
}, 240_000);
afterAll(() => t.close());

describe('POST /api/contracts/import: values as forms lay them out', () => {
  it.each([
    [
      'a labelled item’s one-sentence answer as written, its full stop with it, with or without a space after the colon; a table cell of wording with its full stop, a date’s without; no run-in heading’s clause, no form version',
      'answers',
      LABELLED_ANSWERS_VARIABLES,
    ],
    [
      'a table whose header row names its columns: each body cell a value of its column',
      'columns',
      COLUMN_VARIABLES,
    ],
    [
      'a cover page’s table of names side by side, and a signer’s name over a signature table’s caption',
      'cover',
      COVER_VARIABLES,
    ],
    [
      'registration numbers after their label, a definition naming a person or a party, a seat in English and French, an English deed’s “Signed by”',
      'running',
      RUNNING_TEXT_VARIABLES,
    ],
  ] as const)('answers %s, as DOCX and as PDF', async (_label, key, expected) => {
    expect(await variablesOf(`${key}.docx`, DOCUMENTS[key])).toEqual(expected);
    expect(await variablesOf(`${key}.pdf`, pdfs[key]!)).toEqual(expected);
  });
});
