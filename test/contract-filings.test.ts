/**
 * Parties, dates and governing law as signed contracts filed with the SEC write them (issue 41):
 * each pattern is a small DOCX imported over HTTP, and the answer must hold the value as written,
 * named from its context where the name is what the pattern decides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { type ImportedVariable, importedVariables, paragraphsAndTables } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient;

beforeAll(async () => ({ t, user } = await startSignedIn()));
afterAll(() => t.close());

/** The value variables the service answers for a DOCX of one paragraph per line. */
async function importedValues(lines: (string | string[][])[]): Promise<ImportedVariable[]> {
  const variables = await importedVariables(user, 'filing.docx', paragraphsAndTables(lines));
  return variables.filter((v) => v.kind === 'value');
}

/** Each expected value is in the answer: by its text, and by its name where one is given. */
async function expectValues(lines: (string | string[][])[], expected: { text: string; name?: string }[]) {
  const values = await importedValues(lines);
  const shown = values.map((v) => ({ name: v.name, text: v.text }));
  for (const value of expected) {
    expect(shown, JSON.stringify(value)).toContainEqual(
      value.name ? value : expect.objectContaining({ text: value.text }),
    );
  }
  return values;
}

const SIGNED =
  'IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first written above.';

/** A pattern: the document's lines (a table as rows of cells), the values it must hold, the texts it must not. */
interface PartyCase {
  lines: (string | string[][])[];
  values: { text: string; name?: string }[];
  absent?: (string | RegExp)[];
}

const GENERAL_CONVENTIONS: Record<string, PartyCase> = {
  'reads a unit and the institution it is part of, in English, French and German, not a building’s part': {
    lines: [
      'Data Use Agreement',
      'I request access to the data held by the Laboratory for Sleep Studies, part of the Eastbrook University, established at Leeds, United Kingdom.',
      'Je demande l’accès aux données du Unité de génomique, faisant partie de la Institut Marlin de santé publique, établi à Lyon, France.',
      'Ich beantrage Zugang zu den Daten des Zentrums für Bildgebung, Teil der Universität Nordstadt, mit Sitz in Köln, Deutschland.',
      'The Tenant may use the Premises, part of the Building, as offices.',
    ],
    values: [
      { text: 'Laboratory for Sleep Studies' },
      { text: 'Eastbrook University' },
      { text: 'Unité de génomique' },
      { text: 'Institut Marlin de santé publique' },
      { text: 'Zentrums für Bildgebung' },
      { text: 'Universität Nordstadt' },
    ],
    absent: ['Premises', 'Building'],
  },
  'reads a party named after “the” when its name is an institution’s, not a group the contract describes': {
    lines: [
      'This Sponsorship Agreement is made by and between Harbor Foods Ltd. ("Sponsor"), and the Okapi Events Foundation, a California nonprofit public benefit corporation ("Organizer").',
      'This Fiscal Sponsorship Agreement is made by and between Harbor Foods Ltd. ("Sponsor") and the Project Signatories ("Signatories").',
    ],
    values: [
      { name: 'sponsor_name', text: 'Harbor Foods Ltd.' },
      { name: 'organizer_name', text: 'Okapi Events Foundation' },
    ],
    absent: [/Signatories/, /^the /],
  },
  'reads labels with accented letters, a label that describes its field at length, and a party’s address printed again in its signature block':
    {
      lines: [
        'Contrat de services',
        'Durée : 12 mois',
        'Vergütung: 12.500,00 EUR',
        'Name of the organisation exporting the data: De Vries & Jansen Advocaten',
        'Address: Stationsplein 45, 3511 ED Utrecht, Netherlands',
        'The exporter transfers the data under these clauses.',
        'Signed for the exporter:',
        'Address: Stationsplein 45, 3511 ED Utrecht, Netherlands',
        'Grantor: Grantee:',
        'Town of Vinton Roanoke Gas Company Attention: Town Manager Attention: President 311 S. Pollard Street 519 Kimball Avenue, N.E. Vinton, Virginia 24179 P.O. Box 13007 Roanoke, Virginia 24030',
      ],
      values: [
        { name: 'duree', text: '12 mois' },
        { name: 'vergutung', text: '12.500,00 EUR' },
        { name: 'name_of_the_organisation_exporting_the_data', text: 'De Vries & Jansen Advocaten' },
        { name: 'address', text: 'Stationsplein 45, 3511 ED Utrecht, Netherlands' },
      ],
      absent: [/Attention/, /Town Manager/, /^President/],
    },
  'reads a party’s number in the registers of other countries, after the register’s name': {
    lines: [
      'Andere gegevens ter identificatie van de organisatie:',
      'KvK-nummer 10113037',
      'Ondernemingsnummer 0467.389.425',
      'Immatriculée au RCS Paris 552 100 554, SIRET 55210055400013.',
      'Amtsgericht Berlin HRB 12345, USt-IdNr. DE123456789',
      'Partita IVA 01234567890; ABN 51 824 753 556',
      'The UID field is stored in the register.',
    ],
    values: [
      { name: 'registration_number', text: '10113037' },
      { text: '0467.389.425' },
      { text: '552 100 554' },
      { text: '55210055400013' },
      { text: '12345' },
      { text: 'DE123456789' },
      { text: '01234567890' },
      { text: '51 824 753 556' },
    ],
    absent: [/field/],
  },
  'reads a form’s list of parties: a company under “Name:”, a name with its particles, a long described label, a label asking for several things answered in turn':
    {
      lines: [
        'Annex I. List of parties',
        'Data exporter(s):',
        '1.',
        'Name: Soluciones Marítimas del Cantábrico S.L.',
        'Contact person’s name, position and contact details: Grace Adeyemi, Chief Operating Officer, grace.adeyemi@smcantabrico.es',
        'Activities relevant to the data transferred under these Clauses: Ship management and crew agency services for shipowners in Spain.',
        'Signature and date: August 17, 2027',
        'Data importer(s):',
        'Name: Redfern Analytics, Inc.',
        'Disasters and Other Contingencies: Each party notifies the other before activating its contingency plan, and both parties test failover together.',
      ],
      values: [
        { text: 'Soluciones Marítimas del Cantábrico S.L.' },
        { name: 'contact_person_s_name', text: 'Grace Adeyemi' },
        { name: 'position', text: 'Chief Operating Officer' },
        { name: 'contact_details', text: 'grace.adeyemi@smcantabrico.es' },
        {
          name: 'activities_relevant_to_the_data_transferred_under_these_clauses',
          text: 'Ship management and crew agency services for shipowners in Spain.',
        },
        { text: 'August 17, 2027' },
        { text: 'Redfern Analytics, Inc.' },
        {
          text: 'Each party notifies the other before activating its contingency plan, and both parties test failover together.',
        },
      ],
      absent: ['Soluciones Marítimas', 'August 17', 'and both parties test failover together'],
    },
  'reads dates with the month’s name in French, German, Spanish, Italian, Dutch and Portuguese': {
    lines: [
      'Contrat de services',
      'Le présent contrat est conclu le 3 mars 2026 et prend fin le 1er janvier 2027.',
      'Le Client paie chaque facture dans un délai de 30 jours.',
      'Dieser Vertrag wird am 4. März 2026 geschlossen.',
      'Firmado en Madrid el 5 de marzo de 2026.',
      'Firmato a Roma il 6 marzo 2026.',
      'Getekend te Amsterdam op 7 maart 2026.',
      'Assinado em Lisboa em 8 de março de 2026.',
    ],
    values: [
      { text: '3 mars 2026' },
      { text: '1er janvier 2027' },
      { text: '4. März 2026' },
      { text: '5 de marzo de 2026' },
      { text: '6 marzo 2026' },
      { text: '7 maart 2026' },
      { text: '8 de março de 2026' },
    ],
    absent: [/jours/, /^le /, /^am /, /^il /],
  },
  // Dutch's juni, juli and oktober are no English month, and German writes its day with a full
  // stop before the months it shares with English: each language's parser reads the date whole.
  'reads the Dutch months no other language writes alike, a German day before a month English shares, and no law’s date':
    {
      lines: [
        'Overeenkomst',
        'Getekend te Utrecht op 1 juni 2026, verlengd op 2 juli 2026 en op 15 oktober 2026.',
        'Dieser Vertrag wird am 3. Juli 2026 geschlossen und am 1. April 2027 verlängert.',
        // A law's date, as the EU cites its acts: the same in every contract that cites it.
        'Definities als in Richtlijn 95/46/EG van het Europees Parlement en de Raad van 24 oktober 1995.',
        'As in Directive 95/46/EC of the European Parliament and of the Council of 24 October 1995.',
      ],
      values: [
        { text: '1 juni 2026' },
        { text: '2 juli 2026' },
        { text: '15 oktober 2026' },
        { text: '3. Juli 2026' },
        { text: '1. April 2027' },
      ],
      absent: ['Juli 2026', 'April 2027', /1995/],
    },
  'reads a unit whose name holds “of”, and a draft’s unit whose institution is still blank': {
    lines: [
      'Data Use Agreement',
      'I request access to the data held in the repository of the Department of Sleep Medicine, part of the Eastbrook University, established at Leeds.',
      'Les données du Laboratoire de génomique, faisant partie de la <INSTITUTION>, établi à Lyon, France.',
      'The data of the School of Public Health, part of the [University], are shared.',
    ],
    values: [
      { text: 'Department of Sleep Medicine' },
      { text: 'Eastbrook University' },
      { text: 'Laboratoire de génomique' },
      { text: 'School of Public Health' },
    ],
    absent: ['Sleep Medicine', 'Public Health', 'the repository of the Department of Sleep Medicine'],
  },
  'reads a quantity in groups of three with its unit of measure, or alone before the thing it counts': {
    lines: [
      'Supply Agreement',
      'This Agreement is made between Acme Feed Corp. and Beta Farms LLC.',
      'Seller shall deliver 30,000 lbs. of feed each month.',
      'The Corporation may issue 7,458,575 shares of Common Stock.',
      'Notices under Section 1,000 go to page 2,000 of the register.',
    ],
    values: [{ text: '30,000 lbs' }, { text: '7,458,575' }],
    absent: [/shares/, '1,000', '2,000'],
  },
  'reads no party’s name from the pronouns a contract defines (“You”, “Us”), and no venue from a clause in capitals':
    {
      lines: [
        'Contributor Agreement',
        'This Agreement is made between Acme Widgets, Inc. and the contributor named below ("You").',
        'This Agreement sets out the entire agreement between You and Us for Your Contributions to Us.',
        'REVIEWING COURTS SHALL APPLY LOCAL LAW THAT MOST CLOSELY APPROXIMATES AN ABSOLUTE WAIVER OF ALL CIVIL OR CONTRACTUAL LIABILITY IN CONNECTION WITH THE CONTRIBUTION.',
        'THE PARTIES SUBMIT TO THE EXCLUSIVE JURISDICTION OF THE COURTS OF THE STATE OF NEW YORK.',
      ],
      values: [{ text: 'Acme Widgets, Inc.' }, { text: 'STATE OF NEW YORK' }],
      absent: [/^Us\b/, /CIVIL|LIABILITY|^ALL$/],
    },
  'reads a generational suffix written after a comma as part of the name': {
    lines: [
      SIGNED,
      'KESTREL NANOTECH CORP.',
      '/s/ Harold W. Pike, Sr.',
      'Harold W. Pike, Sr.',
      'Dated: 5/4/09',
    ],
    values: [{ text: 'Harold W. Pike, Sr.' }],
  },
  'reads "&" inside a firm’s name as the name’s, not as two parties': {
    lines: [
      'Memorandum of Understanding',
      'Between Northgate Trading Ltd and Marlow & Finch Limited',
      'DATE: 3 April 2025',
    ],
    values: [{ text: 'Marlow & Finch Limited' }],
    absent: ['Finch Limited'],
  },
  'ends a public body’s name at its head noun before "and"': {
    lines: [
      'Memorandum of Understanding',
      'Between U.S. Small Business Administration and Société Lumière Numérique SAS',
      'DATE: 3 April 2025',
    ],
    values: [{ text: 'U.S. Small Business Administration' }, { text: 'Société Lumière Numérique SAS' }],
    absent: [/ and /],
  },
  'reads a legal form after "a" as the party’s descriptor, not its name': {
    lines: [
      'This Sponsorship Agreement is made by and between WordPress Community Support, a Public Benefit Corporation (the "WPCS"), and Pinecrest Cloud Services Corp. (the "Sponsor").',
    ],
    values: [{ name: 'wpcs_name', text: 'WordPress Community Support' }],
    absent: ['Public Benefit Corporation'],
  },
  'ends the list of parties where the sentence turns to its subject': {
    lines: [
      'Memorandum of Understanding',
      'The purpose of this memorandum is to establish a management agreement between Federal Election Commission and Marlowe Creek Software, LLC regarding the security of a connection between Grants Management System (GMS), owned by Federal Election Commission, and Payment Disbursement Platform (PDP), owned by Marlowe Creek Software, LLC.',
    ],
    values: [{ text: 'Federal Election Commission' }, { text: 'Marlowe Creek Software, LLC' }],
    absent: ['Payment Disbursement Platform'],
  },
  'reads who signs an English execution clause and the company they sign for, and no dotted rule': {
    lines: [
      'This Agreement has been entered into on the date stated at the beginning of it.',
      [
        [
          'Signed by Yuki Tanaka for and on behalf of HARBOUR SCIENCE LIMITED on 22 December 2024',
          '........ Director',
        ],
        ['Signed by Amelia K. Hart on 22 December 2024', '........ Community Member'],
      ],
    ],
    values: [{ text: 'Yuki Tanaka' }, { text: 'HARBOUR SCIENCE LIMITED' }, { text: 'Amelia K. Hart' }],
    absent: [/\.{4}/],
  },
  'reads the signer typed above a "Signature" caption, with the organization after the comma': {
    lines: [
      'I agree to the terms of this Memorandum of Understanding.',
      'Jonas Bergström, U.S. Small Business Administration',
      'Signature',
      'J.H. Cromarty',
      'Signature',
    ],
    values: [
      { text: 'Jonas Bergström' },
      { text: 'U.S. Small Business Administration' },
      { text: 'J.H. Cromarty' },
    ],
  },
  'reads parties and people an English definitions clause defines by "means"': {
    lines: [
      'Definitions:',
      'Agreement means this fiscally sponsored community contract.',
      'Community Representative means Thomas J. Whitaker III who is the authorised point of contact to act for the Community.',
      'Grantor means The Calder Valley Charitable Trust, a registered charity in England and Wales (charity number 1054551).',
      'Funder means Northbridge Science Foundation, a registered charity.',
      'Territory means United Kingdom and Ireland.',
    ],
    values: [
      { name: 'community_representative', text: 'Thomas J. Whitaker III' },
      { name: 'grantor', text: 'The Calder Valley Charitable Trust' },
      { name: 'funder', text: 'Northbridge Science Foundation' },
    ],
    absent: ['United Kingdom'],
  },
  'ends an address where "referred to as" defines its party': {
    lines: [
      'This lease is entered into on March 2, 2019, between Jo Roe, having a place of business at 14 Birch Lane, Dayton, Clark County, Ohio, referred to as "landlord," and Kettle Works, Inc., having a place of business at 9 Quarry Road, Dayton, Ohio, referred to as "tenant."',
    ],
    values: [{ text: '14 Birch Lane, Dayton, Clark County, Ohio' }, { text: '9 Quarry Road, Dayton, Ohio' }],
    absent: [/referred/],
  },
  'reads each party’s name of signature blocks side by side, not the caption or column before it': {
    lines: [
      'This Agreement is made between Harrow Lane Supply, LLC, a Utah limited liability company ("Buyer"), and Tamsin Optics, LLC, a Utah limited liability company ("Tamsin").',
      SIGNED,
      'BUYER TAMSIN HARROW LANE SUPPLY, LLC TAMSIN OPTICS, LLC',
    ],
    values: [{ text: 'HARROW LANE SUPPLY, LLC' }],
    absent: [/TAMSIN HARROW/],
  },
  'reads the next block’s party after another column’s name or trade name, not both as one': {
    lines: [
      'This Agreement is made between Orchard 7, LLC, d/b/a GREYFIELD FARMS ("Greyfield"), and Lumen Hemp Works, Inc ("Lumen") and Corvid Signal Systems, Inc. ("Corvid").',
      SIGNED,
      'Orchard 7, LLC d/b/a Greyfield Farms Lumen Hemp Works, Inc.',
      'Pelham Freight Trading Corvid Signal Systems, Inc.,',
      'Company Limited, As Agent',
    ],
    values: [{ text: 'Lumen Hemp Works, Inc.' }, { text: 'Corvid Signal Systems, Inc.' }],
    absent: [/Farms Lumen|Trading Corvid/],
  },
  'ends an address at the signature caption printed beside it': {
    lines: [
      'This Agreement is made between Acme Inc. and Globex LLC.',
      'Address: 7 Quay Street Authorized Signature: Leeds LS1 4DT, ENGLAND',
    ],
    values: [{ text: '7 Quay Street' }],
    absent: [/Authorized/],
  },
  'ends a date before the comma that sets off its time': {
    lines: ['The term of this lease begins on March 2, 2019, and ends on March 1, 2020, at 5:00 PM.'],
    values: [{ text: 'March 1, 2020' }],
    absent: ['March 1, 2020,'],
  },
};

const FILINGS_WRITE: Record<string, PartyCase> = {
  'reads names in capitals, "AND" and all': {
    lines: [
      'REINSURANCE AGREEMENT',
      'This Reinsurance Agreement is entered into by and between ATHENE ANNUITY AND LIFE COMPANY, an Iowa corporation ("Athene"), and APOLLO CAPITAL MANAGEMENT, L.P., a Delaware limited partnership ("ACM").',
    ],
    values: [
      { name: 'party_1_name', text: 'ATHENE ANNUITY AND LIFE COMPANY' },
      { name: 'party_2_name', text: 'APOLLO CAPITAL MANAGEMENT, L.P.' },
    ],
  },
  'reads an "AND" after a party’s defined term in a title in capitals as between two parties': {
    lines: [
      'CONSULTING AGREEMENT BETWEEN HALCYON AND VERDANT MILLS, INC.',
      'This agreement is made on May 3, 2001 between Verdant Mills, Inc., a Texas corporation ("Verdant") and Halcyon Research Partners ("HALCYON").',
    ],
    values: [{ text: 'VERDANT MILLS, INC.' }],
    absent: [/HALCYON AND/],
  },
  'reads an "AND" after a party’s defined term, which the title writes in capitals, as between two parties': {
    lines: [
      'CONSULTING AGREEMENT BETWEEN HALCYON AND VERDANT MILLS, INC.',
      'This agreement is made on May 3, 2001 between Verdant Mills, Inc., a Texas corporation ("Verdant") and Halcyon Research Partners ("Halcyon").',
    ],
    values: [{ text: 'VERDANT MILLS, INC.' }],
    absent: [/HALCYON AND/],
  },
  'reads the company after an officer’s title and "of", not the title': {
    lines: [
      'Dear Ms. Lark:',
      'This letter agreement (“Agreement”) sets out the terms of your employment as Senior Vice President and Chief Financial Officer of Brightwater Mills Corp. (“Brightwater” or the “Company”).',
    ],
    values: [{ name: 'company_name', text: 'Brightwater Mills Corp.' }],
    absent: [/Officer of/],
  },
  'reads the first party after "between" set off by a comma': {
    lines: [
      'This Software Licence Agreement is by and between, Quillon Data Systems Company Limited, a PRC corporation with offices at 12 Ri Jing Road, Nanjing, China, ("Licensee"), and Maple Crest Software, Inc., a Delaware corporation ("Licensor").',
    ],
    values: [{ name: 'licensee_name', text: 'Quillon Data Systems Company Limited' }],
  },
  'reads a company whose name is written in lower case': {
    lines: [
      'This Agreement is made by and between theglobe.com, inc., a Delaware corporation (the "Company"), and Egan Holdings LLC ("Egan").',
    ],
    values: [{ name: 'company_name', text: 'theglobe.com, inc.' }, { text: 'Egan Holdings LLC' }],
  },
  'takes both names of a party written with f/k/a, formerly known as and d/b/a': {
    lines: [
      'This Agreement is made between Acme Holdings Inc. f/k/a Acme Corp., a Nevada corporation (the "Company"), and Zeta Trading, formerly known as Old Zeta Partners ("Zeta").',
      'Section 1. Notices to Beta Supply LLC d/b/a Beta Foods shall be sent by mail.',
    ],
    values: [
      { name: 'company_name', text: 'Acme Holdings Inc.' },
      { name: 'company_former_name', text: 'Acme Corp.' },
      { text: 'Zeta Trading' },
      { name: 'party_1_former_name', text: 'Old Zeta Partners' },
      { text: 'Beta Supply LLC' },
      { name: 'trade_name', text: 'Beta Foods' },
    ],
  },
  'reads companies of other countries by their legal form, a jurisdiction inside the name included': {
    lines: [
      'This Shareholders Agreement is made by and among Telenor ASA, Altimo Holdings (BVI) Limited and Eco Telecom Limited.',
      'The Agent is Fiat Finance S.p.A.; the Custodian is Nomura Trust K.K., and the Bank is Heineken B.V.',
    ],
    values: [
      { name: 'party_1_name', text: 'Telenor ASA' },
      { name: 'party_2_name', text: 'Altimo Holdings (BVI) Limited' },
      { name: 'party_3_name', text: 'Eco Telecom Limited' },
      { text: 'Fiat Finance S.p.A.' },
      { text: 'Nomura Trust K.K.' },
      { text: 'Heineken B.V.' },
    ],
  },
  'reads a person as a party ("an individual"), across a line the filing wrapped': {
    lines: [
      'This Non-Competition and Non-Disclosure Agreement is entered into by and between Ameris Bancorp, a Georgia corporation ("Ameris"), and Shirley P. Fiano, an individual resident',
      'of the State of Florida ("Executive").',
    ],
    values: [{ text: 'Ameris Bancorp' }, { name: 'executive_name', text: 'Shirley P. Fiano' }],
  },
  'reads several parties in one preamble sentence, defined or not': {
    lines: [
      'This Agreement is made between Alpha Corp. ("Alpha"), Beta Holdings LLC ("Beta") and Gamma Partners, L.P.',
    ],
    values: [
      { name: 'party_1_name', text: 'Alpha Corp.' },
      { name: 'party_2_name', text: 'Beta Holdings LLC' },
      { name: 'party_3_name', text: 'Gamma Partners, L.P.' },
    ],
  },
  'reads parties introduced by "is made by" and "entered into by"': {
    lines: ['This Confidentiality Agreement is entered into by Omega Industries, Inc. and Delta Labs LLC.'],
    values: [
      { name: 'party_1_name', text: 'Omega Industries, Inc.' },
      { name: 'party_2_name', text: 'Delta Labs LLC' },
    ],
  },
  'reads the employee a letter agreement is addressed to': {
    lines: [
      'Edward L. Monser',
      '8000 West Florissant Ave.',
      'St. Louis, MO 63136',
      'Dear Ed:',
      'This letter sets out the terms of your retirement from Emerson Electric Co.',
    ],
    values: [{ name: 'addressee_name', text: 'Edward L. Monser' }, { text: 'Emerson Electric Co.' }],
  },
  'reads names with a number, "and Company" and "Corporation of America" in them': {
    lines: [
      'This Agreement is entered into by and between Charles H. Turner (the "Employee"), Pier 1 Services Company ("Company") and Pier 1 Imports, Inc. ("Imports").',
      'This Agreement is entered into as of March 19, 2018 between ARMO Biosciences, Inc., a Delaware corporation ("Seller"), and Eli Lilly and Company, an Indiana corporation ("Buyer").',
      'This Agreement is made between InterTrust Technologies Corporation ("InterTrust") and Sony Corporation of America, a New York corporation ("Sony").',
    ],
    values: [
      { text: 'Pier 1 Services Company' },
      { text: 'Pier 1 Imports, Inc.' },
      { name: 'buyer_name', text: 'Eli Lilly and Company' },
      { text: 'Sony Corporation of America' },
    ],
  },
  'reads an "and" inside a name that a legal form ends, not after a defined term': {
    lines: [
      'This Agreement is made by and between Integrated Drilling Equipment Holdings Corp. ("Buyer") and Offshore and Marine Holdings LLC (the "Representative").',
      'The escrow shall be held by Boston Safe Deposit and Trust Company for the Representative.',
      'Any agreement between Buyer and Rural Cellular Corporation shall survive.',
      SIGNED,
    ],
    values: [
      { name: 'representative_name', text: 'Offshore and Marine Holdings LLC' },
      { text: 'Boston Safe Deposit and Trust Company' },
    ],
    absent: ['Buyer and Rural Cellular Corporation'],
  },
  'reads a person introduced as "an individual", whatever the description after it': {
    lines: [
      'This Agreement is made by and between Biosite Incorporated, a Delaware corporation (the "Employer"), and Gunars Valkirs, an individual, who is a resident of and employed in the State of California ("Employee").',
      SIGNED,
    ],
    values: [
      { name: 'employer_name', text: 'Biosite Incorporated' },
      { name: 'employee_name', text: 'Gunars Valkirs' },
    ],
  },
  'reads a company registered with "The" in its name, when a legal form ends it': {
    lines: [
      'This Agreement is made by and between The Travelers Companies, Inc., a Minnesota corporation ("Travelers"), and The Healthfield Group, Inc., a Delaware corporation ("Healthfield").',
      'The Company shall pay the fees of The Escrow Agent.',
      SIGNED,
    ],
    values: [{ text: 'The Travelers Companies, Inc.' }, { text: 'The Healthfield Group, Inc.' }],
    absent: ['The Company'],
  },
  'reads a firm named for its founders, their names listed before "& Co." or "and Co."': {
    lines: [
      'This Agreement is made by and among Heritage-Crystal Clean, LLC (the "Company"), Bruckmann, Rosser, Sherrill & Co., Inc., a Delaware corporation ("BRS"), and Bruce C. Bruckmann ("Bruckmann").',
      'Any agreement among Buyer, Seller and Company survives.',
      'The Executive releases Sears, Roebuck and Co., its agents and assigns.',
      SIGNED,
    ],
    values: [{ text: 'Bruckmann, Rosser, Sherrill & Co., Inc.' }, { text: 'Sears, Roebuck and Co.' }],
    absent: ['Buyer, Seller and Company'],
  },
  'reads the company a confidentiality letter is addressed to, above "Ladies and Gentlemen:"': {
    lines: [
      'December 7, 2012',
      'Peter Brent',
      'JAB Beech Inc.',
      '2200 Pennsylvania Avenue, NW',
      'Washington, DC 20052',
      'Non-Disclosure Agreement',
      'Ladies and Gentlemen:',
      'In connection with a possible negotiated transaction with Caribou Coffee Company, Inc., you have requested information.',
    ],
    values: [
      { name: 'addressee_company_name', text: 'JAB Beech Inc.' },
      { name: 'addressee_name', text: 'Peter Brent' },
    ],
  },
  'reads a person the agreement defines as "You", however often it speaks to "You" later': {
    lines: [
      'This Agreement is between Joseph M. Squeri (hereafter “You”) and Comstock Homebuilding Companies, Inc. (hereafter “the Company”), effective August 2, 2010. You enter into this Agreement for consideration given to You, Your employment and continued employment with the Company.',
    ],
    values: [{ text: 'Joseph M. Squeri' }, { text: 'Comstock Homebuilding Companies, Inc.' }],
  },
  'reads a party named only in its signature block': {
    lines: [
      'MUTUAL NONDISCLOSURE AGREEMENT',
      'The parties signing below agree to keep each other’s information confidential.',
      SIGNED,
      'HYPERION MINING',
      'By: /s/ Jane Roe',
      'Title: President',
    ],
    values: [{ name: 'organization_name', text: 'HYPERION MINING' }],
  },
  'reads a company by the descriptor after its name (", a California corporation"), whatever the name looks like':
    {
      lines: [
        'This Agreement is entered into by and between ZENTRA, a California corporation, with its executive offices located at 10 Main Street, Irvine, California 92602, and BRIGHTWELL SYSTEMS CORPORATION a Nevada corporation.',
        'This Confidentiality Agreement is entered into between 77¢ Outlet Stores, a California corporation (the “Company”), and Harbor & Pike Partners, L.P. (“Counterparty”).',
        'THIS AGREEMENT made by and between The Farmers Bank of Lorain, an Ohio banking corporation having its principal offices at 18 Main Street, Lorain, Ohio 44052 (the “Bank”), and Jane Q. Roe, a resident of Ohio (“Roe”).',
        'Each of Alpha, a Director of the Bank, and Beta shall keep the information secret.',
      ],
      values: [
        { name: 'party_1_name', text: 'ZENTRA' },
        { name: 'company_name', text: '77¢ Outlet Stores' },
        { name: 'bank_name', text: 'The Farmers Bank of Lorain' },
      ],
      absent: ['Alpha'],
    },
  'reads a person listed as "an individual" beside a defined company, without a definition of his own': {
    lines: [
      'THIS AGREEMENT made this 1st day of February, 2011, by and between Lorain Savings Company, an Ohio corporation (the “Bank”), and Peter Demming, an individual having an address at Lorain, Ohio 44052 (Demming).',
    ],
    values: [
      { name: 'bank_name', text: 'Lorain Savings Company' },
      { name: 'party_1_name', text: 'Peter Demming' },
    ],
  },
  'reads a party whose definition goes on to say what its term includes': {
    lines: [
      'This Agreement is made this 5th day of May, 2006 by and between StratiX Group (hereinafter the “Company”, a term which includes the Company’s successors and assigns) and PETER LANG (hereinafter “Employee”).',
      'In consideration of the award granted to me by Beacon Private Holdings, (the “Company” which for purposes of this Agreement shall include its subsidiaries) I agree as follows.',
    ],
    values: [{ name: 'company_name', text: 'StratiX Group' }, { text: 'Beacon Private Holdings' }],
  },
  'reads initials written with periods inside a name ("L.M.K. Advisory LLC")': {
    lines: [
      'This Agreement is made and entered into as of the 28th day of November, 2006, by and between Nordic Pharma, Inc., a Delaware corporation (“NORDIC”), L.M.K. Advisory LLC, 28 State Street, Boston, Massachusetts 02109 (“L.M.K.”), and Delta River Inc., a Virginia corporation (“DELTA”).',
    ],
    values: [{ text: 'L.M.K. Advisory LLC' }],
  },
  'reads a company registered with "The" in its name in a signature block in capitals': {
    lines: [
      'I, Mary Minton, agree to the terms of the attached letter.',
      SIGNED,
      '/s/ Mary Minton',
      'THE ZEPHYR-COLA COMPANY',
      'By: /s/ Geoffrey J. Kell',
      'Title: Vice President',
    ],
    values: [{ name: 'organization_name', text: 'THE ZEPHYR-COLA COMPANY' }],
  },
  'reads a company of a CIS state by its legal form in words and its name in quotation marks': {
    lines: [
      'MUTUAL NON-DISCLOSURE AGREEMENT dated as of September 23, 2009 among NORTHERN HOLDINGS LIMITED, a company organized under the laws of Cyprus (“Northern”), and OPEN JOINT STOCK COMPANY “NORD-TELECOM”, an open joint stock company organized under the laws of the Russian Federation (“NordTel”).',
      'NordTel holds shares in Closed Joint Stock Company “Baltic Mobile”, a closed joint stock company.',
    ],
    values: [
      { text: 'OPEN JOINT STOCK COMPANY “NORD-TELECOM”' },
      { name: 'organization_name', text: 'Closed Joint Stock Company “Baltic Mobile”' },
    ],
  },
  'reads the company after its board ("the Board of Directors of …"), and not the board': {
    lines: [
      'As a condition of my becoming a member of the Board of Directors of Quantive Data Corporation, a Delaware corporation (the “Company”), I agree to the following.',
    ],
    values: [{ name: 'organization_name', text: 'Quantive Data Corporation' }],
    absent: [/Board/],
  },
};

describe('POST /api/contracts/import: parties as filings write them', () => {
  it.each(Object.entries({ ...FILINGS_WRITE, ...GENERAL_CONVENTIONS }))(
    '%s',
    async (_title, { lines, values, absent = [] }) => {
      const texts = (await expectValues(lines, values)).map((v) => v.text);
      for (const text of absent)
        expect(texts.filter((t) => (typeof text === 'string' ? t === text : text.test(t)))).toEqual([]);
    },
  );
});

describe('POST /api/contracts/import: dates as filings write them', () => {
  it.each([
    [
      'This Agreement is entered into on Dec. 8, 2005 by and between Acme Corp. and Beta LLC.',
      'Dec. 8, 2005',
    ],
    ['This Agreement is dated as of Sept. 1, 2010 between Acme Corp. and Beta LLC.', 'Sept. 1, 2010'],
    [
      'THIS AGREEMENT is made the 8th day of May 2014 by and between Acme Corp. and Beta LLC.',
      '8th day of May 2014',
    ],
    [
      'THIS AGREEMENT is made this 8th day of May, 2014 by and between Acme Corp. and Beta LLC.',
      '8th day of May, 2014',
    ],
    ['This Agreement is made May 8th, 2014 between Acme Corp. and Beta LLC.', 'May 8th, 2014'],
    ['This Agreement is dated 8 May 2014 between Acme Corp. and Beta LLC.', '8 May 2014'],
    ['This Agreement is dated 2014-05-08 between Acme Corp. and Beta LLC.', '2014-05-08'],
    [
      'This Agreement is made and entered into as of 5/8/14 by and between Acme Corp. and Beta LLC.',
      '5/8/14',
    ],
  ])('names the date of "%s" the agreement date', async (preamble, date) => {
    await expectValues([preamble], [{ name: 'agreement_date', text: date }]);
  });

  it('names the date after "effective as of", and a date defined as the Effective Date, the effective date', async () => {
    await expectValues(
      ['This Agreement is effective as of June 1, 2015 by and between Acme Corp. and Beta LLC.'],
      [{ name: 'effective_date', text: 'June 1, 2015' }],
    );
    await expectValues(
      [
        'This Agreement is made and entered into as of July 2, 2016 (the "Effective Date") by and between Acme Corp. and Beta LLC.',
      ],
      [{ name: 'effective_date', text: 'July 2, 2016' }],
    );
  });

  it('answers no date for "as of the date last signed below"', async () => {
    const values = await importedValues([
      'This Agreement is effective as of the date last signed below by and between Acme Corp. and Beta LLC.',
    ]);
    expect(values.filter((v) => v.name.includes('date'))).toEqual([]);
  });

  it('reads a letter’s date that its continuation pages repeat in their heading', async () => {
    await expectValues(
      [
        'March 17, 2010',
        'FLIR Systems, Inc.',
        'Dear Mr. Stoehr:',
        'You have requested information about the Company.',
        'March 17, 2010',
        'Page 2',
        'You agree to keep the Evaluation Material confidential.',
      ],
      [{ text: 'March 17, 2010' }],
    );
  });

  it.each([
    [
      'THIS NONDISCLOSURE AGREEMENT is made as of December 9 th , 2014 (the "Effective Date") by and between Acme Corp. and Beta LLC.',
      'December 9 th , 2014',
      'effective_date',
    ],
    [
      'This Agreement is made this 5 th day of May, 2006 by and between Acme Corp. and Beta LLC.',
      '5 th day of May, 2006',
      'agreement_date',
    ],
    [
      'This Mutual Non-Disclosure Agreement is dated as of 31 st January, 2014 between Acme Corp. and Beta LLC.',
      '31 st January, 2014',
      'agreement_date',
    ],
  ])(
    'reads a date whose superscript ordinal the PDF split from its day: "%s"',
    async (preamble, date, name) => {
      await expectValues([preamble], [{ name, text: date }]);
    },
  );

  it('reads the date each signer wrote under a signature, the same on both', async () => {
    await expectValues(
      [
        'CONFIDENTIALITY AGREEMENT',
        'The Company and the Employee agree to keep the Company’s information confidential.',
        SIGNED,
        'Citi Trends, Inc.',
        'By: /s/ Bruce D. Smith',
        'Date:',
        '3/15/2018',
        'Employee Signature: /s/ Stuart Clifford',
        'Date:',
        '3/15/2018',
      ],
      [{ text: '3/15/2018' }],
    );
  });
});

describe('POST /api/contracts/import: governing law as filings write it', () => {
  it.each([
    [
      'the laws of a State',
      [
        'This Agreement shall be governed by and construed in accordance with the laws of the State of New York.',
      ],
      'State of New York',
    ],
    [
      'the internal laws of a Commonwealth',
      ['This Agreement shall be governed by the internal laws of the Commonwealth of Massachusetts.'],
      'Commonwealth of Massachusetts',
    ],
    [
      'the laws of England and Wales',
      ['This Agreement is governed by the laws of England and Wales.'],
      'England and Wales',
    ],
    [
      'the law of a State, without regard to its conflict of laws principles',
      [
        'This Agreement shall be governed by the law of the State of Delaware without regard to its conflict of laws principles.',
      ],
      'State of Delaware',
    ],
    [
      'the laws thereof, the state named earlier in the sentence',
      [
        'This Agreement shall be deemed accepted by the Company in the State of Nevada and shall be governed by and construed in accordance with the laws thereof.',
      ],
      'State of Nevada',
    ],
    ['"Texas law"', ['This Agreement shall be interpreted under Texas law.'], 'Texas'],
    [
      'a Governing Law heading over its paragraph',
      ['GOVERNING LAW', 'This Agreement is subject to the laws of the State of Ohio.'],
      'State of Ohio',
    ],
    [
      'the state in lower case',
      [
        'This Agreement shall be governed by the laws of the state of Iowa without regard to conflicts of laws principles.',
      ],
      'state of Iowa',
    ],
    [
      'the laws and public policies of a State',
      [
        'This Agreement shall be governed by and in accordance with the laws and public policies of the State of Delaware.',
      ],
      'State of Delaware',
    ],
    [
      'a clause wrapped before "laws of"',
      [
        'Applicable Law/Jurisdiction. This Agreement, and EMPLOYEE’s employment hereunder, shall be construed according to the',
        'laws of the State of Oregon. EMPLOYEE submits to the jurisdiction of the courts.',
      ],
      'State of Oregon',
    ],
    [
      'a jurisdiction wrapped inside its name',
      [
        'This Agreement shall be governed by and construed in accordance with the laws of the State of',
        'Ohio, without reference to principles of conflict of laws.',
      ],
      'State of\nOhio',
    ],
    [
      'a clause in capitals wrapped before "OF"',
      [
        'Governing Law. THIS AGREEMENT WILL BE GOVERNED BY THE LAWS OF THE STATE',
        'OF TEXAS WITHOUT REGARD FOR CONFLICTS OF LAWS PRINCIPLES.',
      ],
      'STATE\nOF TEXAS',
    ],
  ])('reads %s', async (_pattern, lines, law) => {
    await expectValues(lines, [{ name: 'governing_law', text: law }]);
  });

  it('reads no value across a running footer a page break put inside a sentence, nor across an "and" that lists two', async () => {
    const values = await importedValues([
      'Updated: January 2011',
      '1. I agree that this Agreement will be governed by the laws of the Commonwealth of',
      'Updated: January 2011',
      'Virginia, and I agree to the jurisdiction of its courts.',
      '2. The undersigned direct Robert S. Thompson and the law firm of TSMP Law Corporation and',
      'Cherrin Wong to execute all documents necessary to dismiss the Claims.',
    ]);
    expect(values.filter((v) => v.text.includes('\n'))).toEqual([]);
    const heading = await importedValues([
      'CONFIDENTIALITY AND NON-COMPETE AGREEMENT BETWEEN ALCIS-CA AND',
      'OUR EMPLOYEES, CONSULTANTS AND OTHER THIRD-PARTY CONTRACTORS',
      'ALCiS HEALTH, INC. ("ALCIS-CA") and the undersigned agree as follows.',
    ]);
    expect(heading.filter((v) => v.text.includes('\n'))).toEqual([]);
  });
});
