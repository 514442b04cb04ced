import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createAiContractAnalyzer } from '../adapters/contract-ai/contract-analyzer.ts';
import { normalizeLine } from '../adapters/documents/text-format.ts';
import { countOccurrences, MAX_VARIABLES, toVariables } from '../domain/contracts/analysis/findings.ts';
import { analyzeOffline } from '../domain/contracts/analysis/offline-analysis.ts';
import { scanPlaceholders, toSnakeCase } from '../domain/contracts/analysis/placeholders.ts';
import { organizationsIn } from '../domain/contracts/analysis/values/organizations.ts';
import { typedValues } from '../domain/contracts/analysis/values/typed.ts';
import { startOpenAiStandIn } from './helpers/openai-stand-in.ts';

/**
 * Texts built to make the offline analysis quadratic, found by an attacker's review. Before the
 * fixes each took a minute or more (so a few small uploads held every reader until its timeout);
 * a linear analysis takes about a second on an idle machine. The bounds separate the two whatever
 * the load.
 */
describe('contract analysis: crafted texts stay linear', () => {
  it('counts the occurrences of 500 long blanks in a text of slightly shorter runs (was 65 s)', () => {
    const head = Array.from(
      { length: 500 },
      (_, i) => `Field Number ${String.fromCharCode(65 + (i % 26))}${i}\t${'_'.repeat(500 + i)}`,
    ).join('\n');
    const text = `${head}\n${`${'_'.repeat(499)}x\n`.repeat(3_000)}`;
    expect(text.length).toBeGreaterThan(1_500_000);
    const started = performance.now();
    const variables = analyzeOffline(text, []);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(variables.length).toBeGreaterThan(100);
    expect(variables.length).toBeLessThanOrEqual(MAX_VARIABLES);
    for (const variable of variables) expect(variable.occurrences).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it.each([
    ['conformed signatures', '/s/ '],
    ['parenthesised definitions', '(the "A") '],
    ['definitions after an entity', 'x Inc. (the "A") '],
    ['organizations by their legal form', 'Acme Blue Green Inc., '],
    [
      'signatories and offices on a signature page',
      '/s/ Jo Ann Smith Jo Ann Smith, Chief Executive Officer and President ',
    ],
    ['addresses after their cue', 'with an address at 1 Main Street '],
    ['upper-case labels run together', 'AB CD EF GH: $1 per seat '],
    ['venue leads', 'the courts of and in and at the '],
    ['label lines of terms in wording', 'Fee: 3 months after '],
    ['quoted values after role nouns and prepositions', 'the Tenant "Ab" in "Cd" '],
    ['unclosed quotes', '“Ab '],
    ['illustrations', '(e.g. $1 for example 2 days '],
    ['unclosed brackets and braces', '[{ $1 '],
    ['blanks in the parties’ sentence', 'between {a} and [B Name] '],
    ['write-in boxes drawn with corner marks', 'Name: ⎣ ⎣__ By: ⎣_⎦ '],
    ['instructions after blanks', '___ (insert a ___ (print '],
    ['units printed between two blanks', 'A: 1% / $ 2 % / $ '],
    ['numbers of orders and contracts', 'Order No. A1 Contract # '],
    ['addresses after a name and after another’s ZIP code', 'Acme Inc. 1 Main St, Austin, TX 78701 2 '],
    ['captions under signature rules', 'CIO COO ___ ___ Title/Position Title/Position '],
    ['registration numbers after their label', 'charity number company number 1 Tax ID '],
    ['seats after their cue', 'established at Ab Cd, Ef Gh established in '],
    ['execution clauses and definitions naming a name', 'Signed by Jo Ann Smith Signed by '],
    ['labelled items answered by a sentence', 'Ab Cd:Each party tells the other. '],
    ['quantities before their unit or what they count', '1,000 lbs 2,000,000 shares 3,000,000.5 '],
    [
      'units named with their institution',
      'of the Ab Centre, part of the Cd University of the Ef Unit, part of ',
    ],
    ['fields in single angle brackets, open and closed', '<Ab Cd> <Ef <PAGE> < <<Gh>> '],
    [
      'merge fields, shaped blanks and empty brackets, open and closed',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: `${name}` is the placeholder convention under test
      '%%A_B%% %%A $B_C$ $B #C_D# #C __D_E__ __D ${e} [[F G]] [[ [\t] $[ ] (___) ___-____ (___ __ day of ___, 20__ __/__/ ',
    ],
    // A date's blank shaped "____ day of ________, 20__" whose rules run on: the month's rule and
    // the year's were read split at every place (quadratic in the run).
    ['a date’s blank whose rules run on', `__ day of ${'_'.repeat(239_000)}x`],
    ['ellipses and dots, after labels or in running text', 'Ab: … Cd : ..... the parties … agree ...... '],
    [
      'dates in six languages, every parser’s months in each window',
      '3 mars 2026 4. März 5 de marzo de 6 maart 2026 7 de março de 8 gennaio ',
    ],
  ])(
    'reads one 240,000-character line of %s (within the scanned part; was 13–129 s)',
    (_label, unit) => {
      const text = `This Agreement is made between Acme Inc. and Globex LLC.\n${unit.repeat(Math.floor(240_000 / unit.length))}`;
      const started = performance.now();
      analyzeOffline(text, []);
      expect(performance.now() - started).toBeLessThan(10_000);
    },
    60_000,
  );

  const PREAMBLE = 'This Agreement is made between Acme Inc. and Globex LLC.';
  it.each([
    [
      'labels alone on their lines, each over people and addresses',
      PREAMBLE,
      'Project Signatories:\nJo Ann Smith\nSchedule A\nJo Ann, Jo Ann and Jo Ann\nAddress:\n1 Main Street\n',
    ],
    [
      'a table under its header row, names over captions and definitions',
      'Ab Cd (AC)\tEf Gh Inc.',
      'Full Legal Name\tResidential Address\tEmail Address\nJo Ann Smith\t1 Main Street, Austin, TX 78701\tjo@x.io\nJo Ann Smith, Acme Inc.\nSignature\tDate\nGrantor means The Ab Cd Trust, a charity\n',
    ],
    [
      'signature captions under their rules, on lines of their own',
      PREAMBLE,
      'Jo Ann Smith\n______ ______\nName Name\nCIO COO ___ ___ Title Title\n',
    ],
    [
      'blanks of an ellipsis alone on their lines, under labels',
      PREAMBLE,
      'Other identification of the organisation:\n…\n',
    ],
    [
      'headed questions, each over its answer',
      PREAMBLE,
      'Data subjects\nThe data transferred concern:\nCustomers.\n',
    ],
    [
      'headings in capitals, each over a short entry',
      PREAMBLE,
      'BACKGROUND\nThe two systems exchange records.\n',
    ],
  ])(
    'reads 240,000 characters of %s',
    (_label, head, unit) => {
      const text = `${head}\n${unit.repeat(Math.floor(240_000 / unit.length))}`;
      const started = performance.now();
      analyzeOffline(text, []);
      expect(performance.now() - started).toBeLessThan(10_000);
    },
    60_000,
  );

  // The scans themselves, on a line four times longer than the analysis ever reads: quadratic work
  // would take minutes here (a 240,000-character line took 2–5 s before the fixes, growing 3.6×
  // with each doubling), linear work a second or two.
  it('finds organizations in a megabyte line of legal-form suffixes', () => {
    const line = 'SA x '.repeat(200_000);
    const started = performance.now();
    organizationsIn({ text: line, index: 0 }, []);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 60_000);

  // An empty bracket is a blank when text stands before it on its line or in its cell: looking
  // back for the line's start from each bracket read the line (for a tab, the text) again each time.
  it.each([
    ['one line', 'the Fee [    ] '],
    ['lines of their own, with no tab', 'the Fee [    ]\n'],
  ])(
    'finds the empty brackets of a megabyte of them on %s',
    (_label, unit) => {
      const text = unit.repeat(70_000);
      const started = performance.now();
      const found = scanPlaceholders(text);
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(found).toHaveLength(70_000);
    },
    120_000,
  );

  it('reads the dates of a megabyte line of dates (chrono reads it in windows)', () => {
    const line = 'Jan 1 '.repeat(170_000);
    const started = performance.now();
    typedValues({ text: line, index: 0 });
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it('reads 11,000 lines that each define a party (parties are capped, every line is compared with each)', () => {
    const lines = Array.from({ length: 11_000 }, (_, i) => `Ab${i} Co. ("R${i}")`);
    lines.push(`Title: ${'A B C D E F G H x '.repeat(2_000)}`);
    const text = lines.join('\n');
    const started = performance.now();
    analyzeOffline(text, []);
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 60_000);

  it('counts without overlaps, and at least once', () => {
    expect(countOccurrences('aaaa', 'aa')).toBe(2);
    expect(countOccurrences('abcabcab', 'abcab')).toBe(1);
    expect(countOccurrences('Acme Inc. and Acme Inc.', 'Acme Inc.')).toBe(2);
    // Past the counted part (or nowhere, for a form field's name): still one.
    expect(countOccurrences('x', 'FieldName')).toBe(1);
  });
});

describe('templates answer no value', () => {
  it.each([
    [
      // A signature block of a template prints the capacity or a caption where the signer's name is
      // typed ("Authorised Signatory" / "Signature"), and an English execution clause names the
      // capacity that signs ("Signed by Duly Authorised Signatory for and on behalf of [SUPPLIER]").
      'no signer in a capacity or a caption over “Signature”, nor after “Signed by”',
      [
        'For and on behalf of the Supplier',
        'Authorised Signatory',
        'Signature',
        'Print Name',
        'Signature\tDate',
        'Witness Name',
        'Signature',
        'Signed by Duly Authorised Signatory for and on behalf of [SUPPLIER]',
        'Signed by Print Name',
      ],
    ],
    [
      // Forms stack their signature rules, each captioned under it: the caption of one rule stands
      // right above the next rule, where a filled-in form has the value written.
      'no caption of the rule above as the value of the next rule',
      [
        '______________',
        'Signature',
        '______________',
        'Name',
        '______________',
        'Title',
        '______________ ______________',
        'Print Name Print Name',
        '______________ ______________',
        'Position Position',
        'Name ___ Title',
      ],
    ],
    [
      // A form shows a registration number's shape with zeros, and a term still to settle as "TBD".
      'no sample number of zeros, no term still to settle',
      [
        'The Supplier is registered in England and Wales with company number 00000000.',
        'Start Date: TBD',
        'Fees\tTo be agreed',
        'Territory: tbc',
      ],
    ],
  ])('reads %s', (_title, lines) => {
    const text = [
      'This Agreement is made on [DATE] between [SUPPLIER NAME] and [CUSTOMER NAME].',
      ...lines,
    ].join('\n');
    expect(analyzeOffline(text, []).filter((v) => v.kind === 'value')).toEqual([]);
  });
});

describe('ordinary contracts the placeholder and entry rules leave alone', () => {
  const signed = (...lines: string[]) =>
    analyzeOffline(
      [
        'This Agreement is made on March 1, 2026 between Acme Inc. ("Acme") and Globex LLC ("Globex").',
        ...lines,
      ].join('\n'),
      [],
    ).map((v) => [v.kind, v.name, v.text]);
  const PARTIES = [
    ['value', 'agreement_date', 'March 1, 2026'],
    ['value', 'party_1_name', 'Acme Inc.'],
    ['value', 'party_2_name', 'Globex LLC'],
  ];

  it.each([
    [
      // Python's names and Markdown's bold are one word between double underscores; a merge field
      // is in capitals or snake_case (`__START_DATE__`, `__start_date__`).
      'Python’s names and bold text between double underscores',
      ['The installer calls __init__ and __main__ as described in the __Manual__.'],
    ],
    [
      // Dot leaders run from a heading to its page number, with or without a colon after it.
      'a table of contents’ dot leaders after a colon',
      ['CONTENTS', 'Definitions: ........................ 1', 'Purchase Price: ..................... iv'],
    ],
    [
      // A checkbox holds up to three spaces; a blank to write in is wider.
      'checkboxes after a prompt and after an option',
      ['Please tick: [   ] Yes [   ] No'],
    ],
    [
      'an ellipsis leaving words out of a sentence after a label',
      ['Note: … the remainder of this section is omitted.'],
    ],
    [
      // A contract's headings over lists' lead-ins drafted with "shall" or "this Agreement", three in
      // a row, are its clauses: no form's questions.
      'a contract’s headings over lead-ins, each over its list',
      [
        'Definitions',
        'In this Agreement:',
        'Affiliate means any entity that controls a party.',
        'Services',
        'The Supplier shall:',
        'Deliver the goods to the Customer’s site.',
        'Payment',
        'The Customer shall pay as follows:',
        'Invoices are paid on receipt.',
      ],
    ],
  ])('reads no placeholder and no value in %s', (_label, lines) => {
    expect(signed(...lines)).toEqual(PARTIES);
  });

  it('still reads a merge field between double underscores, a labelled dotted blank and its unit', () => {
    expect(signed('The term starts on __START_DATE__ or __end_date__.', 'Prix : ........ EUR')).toEqual([
      ...PARTIES,
      ['placeholder', 'start_date', '__START_DATE__'],
      ['placeholder', 'end_date', '__end_date__'],
      ['placeholder', 'prix', 'Prix : ........'],
    ]);
  });
});

describe('table rows under a header row', () => {
  it.each([
    [
      // A line is trimmed, its blank cells at the ends with it: a body row whose last cells are
      // blank is still a row of the table under the header row, not a label row nor a paragraph.
      'a body row whose last cells are blank by its columns',
      [
        'Full Legal Name\tResidential Address\tEmail Address',
        'Al Roe\t2 Elm Street, Austin, TX 78701\t',
        'Bo Lee\t\t',
        'Jo Ann Smith\t1 Main Street, Austin, TX 78701\tjo@x.io',
      ],
      [
        ['full_legal_name', 'Al Roe'],
        ['residential_address', '2 Elm Street, Austin, TX 78701'],
        ['full_legal_name_2', 'Bo Lee'],
        ['full_legal_name_3', 'Jo Ann Smith'],
        ['email_address', 'jo@x.io'],
      ],
      'al_roe',
    ],
    [
      // A register of companies prints each one's name and number under a header row.
      'a column of numbers under its heading',
      ['Company Name\tCompany Number', 'Harbor Pike Holdings Limited\t08812345'],
      [
        ['company_name', 'Harbor Pike Holdings Limited'],
        ['company_number', '08812345'],
      ],
      'company_name_2',
    ],
  ])('reads %s', (_title, rows, expected, notName) => {
    const text = ['This Agreement is made on March 1, 2026 between Acme Inc. and Globex LLC.', ...rows].join(
      '\n',
    );
    const values = analyzeOffline(text, [])
      .filter((v) => v.kind === 'value')
      .map((v) => [v.name, v.text]);
    expect(values).toEqual(expect.arrayContaining(expected));
    expect(values.map(([name]) => name)).not.toContain(notName);
  });
});

describe('the AI path', () => {
  it('keeps the worker’s count of a form field (its widgets), and takes no text of a letter or a space', async () => {
    const ai = await startOpenAiStandIn(() => ({
      kind: 'answer',
      variables: [
        { name: 'buyer', kind: 'value', text: 'Acme Inc.' },
        { name: 'space', kind: 'value', text: ' ' },
        { name: 'letter', kind: 'value', text: 'e' },
      ],
    }));
    try {
      const analyzer = createAiContractAnalyzer(
        { url: ai.url, model: 'tiny', timeoutMs: 5_000 },
        pino({ level: 'silent' }),
      );
      const { variables } = await analyzer.analyze({
        text: 'Sold by Acme Inc. to the buyer.',
        variables: [{ name: 'buyer_signature', kind: 'placeholder', text: 'BuyerSignature', occurrences: 2 }],
      });
      expect(variables).toEqual([
        { name: 'buyer', kind: 'value', text: 'Acme Inc.', occurrences: 1 },
        { name: 'buyer_signature', kind: 'placeholder', text: 'BuyerSignature', occurrences: 2 },
      ]);
    } finally {
      await ai.close();
    }
  });
});

describe('odd text and names', () => {
  it('a direction mark or a NUL does not hide a placeholder; a name is never cut to end in _ nor starts with a digit', () => {
    expect(normalizeLine('Between {{company\u200F_name}} and {{na\u0000me}}.')).toBe(
      'Between {{company_name}} and {{name}}.',
    );
    const long = toSnakeCase(`${'a'.repeat(63)} b`);
    expect(long).toMatch(/^[a-z][a-z0-9_]*[a-z0-9]$/);
    const [variable] = toVariables('Rate: 10%', [{ name: '10', kind: 'value', text: '10%', index: 6 }]);
    expect(variable!.name).toBe('value_10');
  });
});
