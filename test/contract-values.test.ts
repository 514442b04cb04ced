import { describe, expect, it } from 'vitest';
import { toVariables } from '../domain/contracts/analysis/findings.ts';
import { analyzeOffline } from '../domain/contracts/analysis/offline-analysis.ts';
import { detectValues, MAX_SCANNED_CHARS } from '../domain/contracts/analysis/values.ts';

/** The values of `text` as the answer gives them: `{name: text}`, in order of first appearance. */
function values(lines: string[]): Record<string, string> {
  const text = lines.join('\n');
  const findings = detectValues(text);
  for (const finding of findings) {
    expect(text.slice(finding.index, finding.index + finding.text.length)).toBe(finding.text);
    expect(finding.kind).toBe('value');
  }
  return Object.fromEntries(toVariables(text, findings).map((v) => [v.name, v.text]));
}

describe('detectValues: parties', () => {
  it('names each party defined in the preamble after its role; its short name is a defined term, not a value', () => {
    expect(
      values([
        'This Master Services Agreement (the "Agreement") is made as of March 1, 2026 (the "Effective Date") between Acme, Inc., a Delaware corporation ("Acme" or the "Customer"), and TechCo Holdings LLC (the “Provider”).',
      ]),
    ).toEqual({
      effective_date: 'March 1, 2026',
      customer_name: 'Acme, Inc.',
      provider_name: 'TechCo Holdings LLC',
    });
  });

  it('reads people and companies listed in the preamble, and a defined term anywhere after a company', () => {
    expect(
      values([
        'This Mutual Nondisclosure Agreement is entered into between Globex Corporation and Initech GmbH.',
      ]),
    ).toEqual({ party_1_name: 'Globex Corporation', party_2_name: 'Initech GmbH' });
    expect(
      values([
        'CONSULTING AGREEMENT',
        'made by and between Blue Heron, Inc. (the "Company") and Dr. Priya Raman ("Consultant").',
      ]),
    ).toEqual({
      company_name: 'Blue Heron, Inc.',
      consultant_name: 'Dr. Priya Raman',
    });
  });

  it('does not take a defined document, date or group for a party', () => {
    expect(
      values([
        'WHEREAS, the parties wish to cooperate;',
        'The Software License Agreement (the "License") and Confidential Information ("Confidential Information") of Acme and Beta (each a "Party") stay in force.',
      ]),
    ).toEqual({});
  });
});

describe('detectValues: signature blocks', () => {
  const preamble =
    'This Agreement is made between TechCo Inc. (the "Provider") and Acme LLC (the "Customer").';

  it('names the signatory and title after the role of the party heading the block', () => {
    expect(
      values([
        preamble,
        'IN WITNESS WHEREOF, the parties have signed this Agreement.',
        'PROVIDER:',
        'By: /s/ Jane Doe',
        'Name: Jane Doe',
        'Title: Chief Executive Officer',
        'ACME LLC',
        'By: ____________ Name: John Roe Title: CFO',
        'Date: March 3, 2026',
      ]),
    ).toEqual({
      provider_name: 'TechCo Inc.',
      customer_name: 'Acme LLC',
      provider_signatory_name: 'Jane Doe',
      provider_signatory_title: 'Chief Executive Officer',
      customer_name_2: 'ACME LLC',
      customer_signatory_name: 'John Roe',
      customer_signatory_title: 'CFO',
      customer_signature_date: 'March 3, 2026',
    });
  });

  it('reads a signature page run into one paragraph, and conformed signatures', () => {
    expect(
      values([
        'IN WITNESS WHEREOF, the parties have signed. Bravatek Technologies, Inc. Fazync LLC By: By: Name: Thomas A. Cellucci Name: Devon Jones Title: CEO Title: Manager',
        'BY /s/ Cameron Gundry BY /s/ Justin Anderson Cameron Gundry, Director',
      ]),
    ).toEqual({
      signatory_name: 'Thomas A. Cellucci',
      signatory_name_2: 'Devon Jones',
      signatory_title: 'CEO',
      signatory_title_2: 'Manager',
      signatory_name_3: 'Cameron Gundry',
      signatory_name_4: 'Justin Anderson',
      // The party named on the signature page, and an office written after a name without a label.
      organization_name: 'Bravatek Technologies, Inc.',
      signatory_title_3: 'Director',
    });
  });

  it('reads blocks side by side in a table, by column', () => {
    expect(
      values([
        preamble,
        'TechCo Inc.\tAcme LLC',
        'By:\t/s/ Jane Doe\tBy:\t/s/ John Roe',
        'Title:\tCEO\tTitle:\tCFO',
      ]),
    ).toEqual({
      provider_name: 'TechCo Inc.',
      customer_name: 'Acme LLC',
      provider_signatory_name: 'Jane Doe',
      customer_signatory_name: 'John Roe',
      provider_signatory_title: 'CEO',
      customer_signatory_title: 'CFO',
    });
  });
});

describe('detectValues: key-terms tables and label lines', () => {
  it('takes the value cell of each row, named after its label', () => {
    expect(
      values([
        'ORDER FORM',
        'Effective Date\tMarch 1, 2026',
        'Provider\tInitech Software LLC',
        'Subscription Fees\t$48,000.00 per year',
        'Payment Terms\tNet 45 days',
        'Support Email\tsupport@initech.example',
        'Notes\t',
        'Signature\t______________',
      ]),
    ).toEqual({
      effective_date: 'March 1, 2026',
      provider_name: 'Initech Software LLC',
      subscription_fees: '$48,000.00 per year',
      payment_terms: 'Net 45 days',
      support_email: 'support@initech.example',
    });
  });

  it('takes a label line’s value, but not a clause that starts with a heading and a colon', () => {
    expect(
      values([
        'Effective Date: January 5, 2026',
        'Customer Contact: Hank Scorpio',
        'Notices: All notices under this Agreement shall be in writing. They are effective on receipt.',
      ]),
    ).toEqual({ effective_date: 'January 5, 2026', customer_contact: 'Hank Scorpio' });
  });
});

describe('detectValues: values by their form', () => {
  it('finds dates, money, percentages and durations, the smallest span that carries each', () => {
    expect(
      values([
        '1. Term. This Agreement starts on the 1st day of April, 2024, runs for 12 months and renews for thirty (30) days.',
        '2. Fees. Customer shall pay ten thousand dollars ($10,000), USD 5,000.00 and €1.2 million, plus fifteen percent (15%) of net sales and three (3) percent of gross sales.',
        '3. Dates. Delivery is due 2026-06-30 or by 06/30/2026, and the price is fixed until Sept. 3, 2027.',
      ]),
    ).toEqual({
      date: '1st day of April, 2024',
      duration: '12 months',
      duration_2: 'thirty (30) days',
      amount: 'ten thousand dollars ($10,000)',
      amount_2: 'USD 5,000.00',
      amount_3: '€1.2 million',
      percentage: 'fifteen percent (15%)',
      percentage_2: 'three (3) percent',
      date_2: '2026-06-30',
      date_3: '06/30/2026',
      date_4: 'Sept. 3, 2027',
    });
  });

  it('finds addresses, e-mail addresses and phone numbers', () => {
    expect(
      values([
        '8. Notices. Notices go to 100 Cambridge Park Drive, Suite 4, Cambridge, MA 02140, to legal@blueheron.example, by phone to (617) 555-0199 or +44 20 7946 0958.',
      ]),
    ).toEqual({
      address: '100 Cambridge Park Drive, Suite 4, Cambridge, MA 02140',
      email: 'legal@blueheron.example',
      phone: '(617) 555-0199',
      phone_2: '+44 20 7946 0958',
    });
  });

  it('finds governing law and venue', () => {
    expect(
      values([
        '12. Governing Law. This Agreement is governed by the laws of the State of Delaware. Each party submits to the exclusive jurisdiction of the state and federal courts located in New Castle County, Delaware.',
        '13. Disputes. English law: this Agreement is construed under the laws of England and Wales.',
      ]),
    ).toEqual({
      governing_law: 'State of Delaware',
      venue: 'New Castle County, Delaware',
      governing_law_2: 'England and Wales',
    });
  });

  it('names a value after the term it defines, and keeps one name for a value used twice', () => {
    expect(
      values([
        'The purchase price is $250,000 (the "Purchase Price"), due on May 1, 2026 (the "Closing Date").',
        '4. Payment. Buyer pays $250,000 on May 1, 2026.',
      ]),
    ).toEqual({ purchase_price: '$250,000', closing_date: 'May 1, 2026' });
  });
});

describe('detectValues: boilerplate is left alone', () => {
  it('keeps statutes, sections, recurring dates, running footers and numbers as adjectives out', () => {
    expect(
      values([
        'Source: ACME CORP, 8-K, 4/6/2018',
        '10. Securities. See Section 12.3 and the Securities Act of 1933; reports are due by March 31 of each year.',
        '11. Reports. A 12 month forecast and the 48-Hour report are attached.',
        'Source: ACME CORP, 8-K, 4/6/2018',
      ]),
    ).toEqual({});
  });

  it('counts a signed contract’s durations and rates as its terms, wherever they stand', () => {
    // In a template "within thirty (30) days of notice" is the publisher's wording; in a signed
    // contract it is what the parties agreed (and the placeholders make a template: see below).
    expect(
      values([
        '3. Term. This Agreement remains in effect for two (2) years.',
        '5. Confidentiality. The Receiving Party returns all materials within thirty (30) days of notice.',
        '6. Interest. Late payments bear interest at 1.5% per month.',
        'Initial Term\t36 months',
      ]),
    ).toEqual({
      duration: 'two (2) years',
      duration_2: 'thirty (30) days',
      percentage: '1.5%',
      initial_term: '36 months',
    });
  });

  it('reads a form’s values only where a blank of their kind would stand while its parties or date are still blank', () => {
    const form = [
      'This Agreement is made on [Effective Date] between {{company_name}} and <<Customer Name>>.',
      'Fees: $10,000 (for example, "$12,000 per month"), payable by March 1, 2026.',
      '5. Confidentiality. The Receiving Party returns all materials within thirty (30) days of notice.',
    ].join('\n');
    // The label's value stands where the form's blank would; the example, the date in the line's
    // wording and the clause's duration are the publisher's standard wording.
    expect(analyzeOffline(form, []).map((v) => [v.kind, v.name, v.text])).toEqual([
      ['placeholder', 'effective_date', '[Effective Date]'],
      ['placeholder', 'company_name', '{{company_name}}'],
      ['placeholder', 'customer_name', '<<Customer Name>>'],
      ['value', 'fees', '$10,000'],
    ]);
    // The same lines with their parties and date filled in are a contract: its wording's terms are its terms.
    const filled = analyzeOffline(
      form
        .replace('[Effective Date]', 'May 4, 2026')
        .replace('{{company_name}}', 'Acme Inc.')
        .replace('<<Customer Name>>', 'Beta LLC'),
      [],
    );
    expect(filled.map((v) => v.text)).toEqual([
      'May 4, 2026',
      'Acme Inc.',
      'Beta LLC',
      '$10,000',
      'March 1, 2026',
      'thirty (30) days',
    ]);
  });
});

describe('key-terms tables: the header row', () => {
  it('names the columns and holds no value', () => {
    const found = detectValues(['Term\tValue', 'Effective Date\tMarch 1, 2026'].join('\n'));
    expect(found.map((f) => f.text)).toEqual(['March 1, 2026']);
  });
});

describe('signature blocks side by side on one line', () => {
  it('ends a conformed signature at the next field, colon and all', () => {
    const found = detectValues(
      [
        'ACME CORP.\tGLOBEX LLC',
        'By: /s/ Stephen T. Isaacs By: /s/ Andrea van Elsas Name: Stephen T. Isaacs',
      ].join('\n'),
    );
    const texts = found.map((f) => f.text);
    expect(texts).toContain('Stephen T. Isaacs');
    expect(texts).toContain('Andrea van Elsas');
    expect(texts.filter((t) => / (By|Name)$/.test(t))).toEqual([]);
  });
});

describe('labels with nothing filled in', () => {
  it('takes no redacted value, no box to tick, no next label and no capacity for a person', () => {
    const found = detectValues(
      [
        'Phone: XXXXXXXXXXXXX',
        'Exclusive: [ ] Yes [ ] No',
        'Grantor: Grantee:',
        'By: /s/ Authorized Agent',
        'Effective Date: March 1, 2026',
      ].join('\n'),
    );
    expect(found.map((f) => f.text)).toEqual(['March 1, 2026']);
  });
});

describe('a filled-in contract with a few blanks', () => {
  it('still answers its values when every page keeps a line for initials', () => {
    const text = [
      'This Content License Agreement is made on May 3, 2005 between Orchid Films Inc. and Pacific Reels LLC.',
      'The license fee is $50,000.00.',
      'Initialed ORCHID FILMS:______ Initialed PACIFIC REELS:______',
      'Initials: ____ Initial: ____',
    ].join('\n');
    const variables = analyzeOffline(text, []);
    expect(variables.map((v) => v.text)).toEqual(expect.arrayContaining(['May 3, 2005', '$50,000.00']));
  });

  it('still answers its values when its placeholders are few and far apart (a long signed agreement with a blank exhibit)', () => {
    const body = Array.from(
      { length: 140 },
      (_, i) =>
        `${i + 2}. The parties shall perform the obligations of this clause in good faith and in a timely manner.`,
    );
    const text = [
      'This Agreement is made on November 5, 1997 between WatchGuard Technologies, Inc. and European Micro Plc.',
      'Fees: $25,000 per quarter.',
      ...body,
      'Quarter 1: ____________',
      'Quarter 2: ____________',
      'Quarter 3: ____________',
    ].join('\n');
    expect(text.length).toBeGreaterThan(3 * 4_000);
    const variables = analyzeOffline(text, []);
    expect(variables.filter((v) => v.kind === 'placeholder')).toHaveLength(3);
    expect(variables.map((v) => v.text)).toContain('November 5, 1997');
    // The same three blanks in a one-page document: both kinds, its values and its blanks.
    const short = analyzeOffline(
      [text.split('\n')[0], 'Quarter 1: ______', 'Quarter 2: ______', 'Quarter 3: ______'].join('\n'),
      [],
    );
    expect(short.map((v) => [v.kind, v.text])).toEqual([
      ['value', 'November 5, 1997'],
      ['value', 'WatchGuard Technologies, Inc.'],
      ['value', 'European Micro Plc'],
      ['placeholder', 'Quarter 1: ______'],
      ['placeholder', 'Quarter 2: ______'],
      ['placeholder', 'Quarter 3: ______'],
    ]);
  });
});

describe('detectValues: bounded', () => {
  it('reads at most the first MAX_SCANNED_CHARS characters, line by line', () => {
    const filler = `${'The parties shall cooperate in good faith. '.repeat(20)}\n`;
    const text = `Effective Date: March 1, 2026\n${filler.repeat(Math.ceil(MAX_SCANNED_CHARS / filler.length))}Closing Date: May 1, 2026\n`;
    expect(Object.values(values([text]))).toEqual(['March 1, 2026']);
  });
});

describe('detectValues: what real signed contracts write', () => {
  it('reads signatories and their offices written without labels on the signature page, never in the body', () => {
    expect(
      values([
        'The Director of Operations, Jane Smith, Senior Manager of the Licensee, will coordinate.',
        'IN WITNESS WHEREOF, the parties have signed this Agreement.',
        '/s/ Maria L. Okafor /s/ Tomás Reyes Maria L. Okafor, Vice President and General Counsel Tomás Reyes, CFO',
        '/s/ Henrik Olsen Henrik Olsen Chief Executive Officer Nordlys Energi AB',
      ]),
    ).toEqual({
      signatory_name: 'Maria L. Okafor',
      signatory_name_2: 'Tomás Reyes',
      signatory_title: 'Vice President and General Counsel',
      signatory_title_2: 'CFO',
      signatory_name_3: 'Henrik Olsen',
      signatory_title_3: 'Chief Executive Officer',
      organization_name: 'Nordlys Energi AB',
    });
  });

  it('names an organization by its legal form wherever it stands, but not a descriptor, a defined term or a longer name', () => {
    expect(
      values([
        'This Escrow Agreement is made between Quarry Hill Partners, LLC ("Buyer") and Sandpiper Foods Pty Ltd (the "Seller").',
        'Buyer, a Delaware limited liability company, deposits the price with Keystone Escrow Services, LLC, as escrow agent, under the Delaware General Corporation Law.',
        'The Operating Company, a Texas Corporation, is not a party.',
      ]),
    ).toEqual({
      buyer_name: 'Quarry Hill Partners, LLC',
      seller_name: 'Sandpiper Foods Pty Ltd',
      organization_name: 'Keystone Escrow Services, LLC',
    });
  });

  it('names the organization a person acts for, and keeps the person out of the party', () => {
    expect(
      values([
        'This Hosting Agreement is made by and between Ana Ruiz, director of Brightleaf (the "Client") and Castor Web Ltd (the "Company").',
      ]),
    ).toEqual({ client_name: 'Brightleaf', company_name: 'Castor Web Ltd' });
  });

  it('reads an address of any country after its cue, up to the clause that follows', () => {
    expect(
      values([
        'Made between Lindqvist B.V having an address at Keizersgracht 221, 1016 DV Amsterdam, the Netherlands, represented by Eva Lindqvist, and Maple Analytics Inc., with an address at 88 Queen Street West Suite 400 Toronto Ontario Canada (the "Company"); notices to Lindqvist B.V at its address.',
      ]),
    ).toEqual({
      // Listed after "between" beside a defined party: a party of its own.
      party_1_name: 'Lindqvist B.V',
      address: 'Keizersgracht 221, 1016 DV Amsterdam, the Netherlands',
      company_name: 'Maple Analytics Inc.',
      address_2: '88 Queen Street West Suite 400 Toronto Ontario Canada',
    });
  });

  it('reads "the law of", a jurisdiction without its country, venues "in", "at" and "venue in", and no court’s own name', () => {
    expect(
      values([
        '14. Law. This Agreement is governed by the law of the State of Washington, U.S.A., without regard to conflicts of law.',
        '15. Courts. The courts of competent jurisdiction at Portland, Oregon decide; the parties consent to venue in Multnomah County, Oregon.',
        '16. Forum. The Court of Chancery of the State of Delaware hears derivative claims; see the Chosen Courts in Section 9.',
      ]),
    ).toEqual({
      governing_law: 'State of Washington',
      venue: 'Portland, Oregon',
      venue_2: 'Multnomah County, Oregon',
      venue_3: 'State of Delaware',
    });
  });

  it('takes the terms inside a label line’s wording, and splits upper-case labels run together', () => {
    expect(
      values([
        'Sell-off period: 6 weeks after expiry',
        'Reporting: Monthly; 15 days after month end',
        'LICENSE FEE: $40 per seat ANNUAL MINIMUM: $12,000 per year',
      ]),
    ).toEqual({
      sell_off_period: '6 weeks',
      reporting: '15 days',
      license_fee: '$40',
      annual_minimum: '$12,000',
    });
  });

  it('takes no descriptor, defined term or statute for a party, nor a defined document’s name for a date', () => {
    expect(
      values([
        'This License Agreement is entered into as of June 2, 2021 (the "Agreement") by Lumen Labs, Inc. and, a Delaware corporation ("Lumen"), and a Nevada corporation (the "Licensee").',
        '"Affiliate Company" means any Affiliate Company of Lumen; each Affiliate Company is bound under the Foreign Investment Law (the "Investment Law").',
      ]),
      // Named by "entered into as of", not after the defined document ("Agreement").
    ).toEqual({ agreement_date: 'June 2, 2021', party_1_name: 'Lumen Labs, Inc.' });
  });

  it('splits capitalised labels run into one line', () => {
    expect(
      values(['Facsimile No: (702) 555-0110 Telephone No: (702) 555-0111 Attention: General Counsel']),
    ).toEqual({
      facsimile_no: '(702) 555-0110',
      telephone_no: '(702) 555-0111',
      attention: 'General Counsel',
    });
  });

  it('ends an address at its postcode, at the end of its paragraph, and at the next address of a list', () => {
    expect(
      values([
        'Notices to Acme Ltd, with registered office at 22 Fenchurch Street, London EC3M 3BY, marked for the attention of the Company Secretary.',
        'Between Orion Corp, located at 5 Main St, Anytown, and Vega LLC, located at 7 Oak Ave, Othertown.',
        'Copies to 1 Main St., New York, NY 10001 or 5 Elm Rd, Charleston, West Virginia 25301; our Paris office is located at 12 Rue de Rivoli, 75004 Paris, France.',
      ]),
    ).toEqual({
      organization_name: 'Acme Ltd',
      address: '22 Fenchurch Street, London EC3M 3BY',
      party_1_name: 'Orion Corp',
      address_2: '5 Main St, Anytown',
      party_2_name: 'Vega LLC',
      address_3: '7 Oak Ave, Othertown',
      address_4: '1 Main St., New York, NY 10001',
      address_5: '5 Elm Rd, Charleston, West Virginia 25301',
      address_6: '12 Rue de Rivoli, 75004 Paris, France',
    });
  });

  it('reads a signature page only from its start to the next exhibit, and no web address for a signature', () => {
    expect(
      values([
        'The files are at https://app.box.com/s/k2j3h4 for review.',
        'Changes require approval by the Steering Committee, Chief Financial Officer or the Project Board, Vice President level.',
        'IN WITNESS WHEREOF, the parties have signed.',
        'Daniel R. Okafor, Chief Executive Officer\tSofia Marquez, Managing Partner',
        'Jane Roe, President.',
        'EXHIBIT A',
        'Deliverables in Phase One, President approval; escalations to Alex Kim, CEO.',
      ]),
    ).toEqual({
      signatory_name: 'Daniel R. Okafor',
      signatory_title: 'Chief Executive Officer',
      signatory_name_2: 'Sofia Marquez',
      signatory_title_2: 'Managing Partner',
      signatory_name_3: 'Jane Roe',
      signatory_title_3: 'President',
    });
  });

  it('takes no kind of company for an organization, and knows a party in capitals', () => {
    expect(
      values([
        'This Agreement is between Brightwater Analytics, Inc. (the "Client") and Meridian Systems Group LLC (the "Consultant").',
        'IN NO EVENT SHALL EITHER PARTY OR ANY AFFILIATED COMPANY, BE LIABLE; its Parent Company, or any Holding Company, shall indemnify.',
        'BRIGHTWATER ANALYTICS, INC.\tMERIDIAN SYSTEMS GROUP LLC',
      ]),
    ).toEqual({
      client_name: 'Brightwater Analytics, Inc.',
      consultant_name: 'Meridian Systems Group LLC',
      client_name_2: 'BRIGHTWATER ANALYTICS, INC.',
      consultant_name_2: 'MERIDIAN SYSTEMS GROUP LLC',
    });
  });

  it('takes no citation for a phone number', () => {
    expect(
      values(['Restricted rights under 48 C.F.R. 252.227-7014 apply. Call 312.555.0142 or 312-555-0143.']),
    ).toEqual({
      phone: '312.555.0142',
      phone_2: '312-555-0143',
    });
  });
});
