import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignedIn } from './helpers/app-setup.ts';
import { asRows, importedVariables, paragraphsAndTables, printedByLibreOffice } from './helpers/documents.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Drafts and filled-in forms over HTTP: the answer holds placeholders and values together, and
 * each value candidate is kept or dropped where it stands
 * (docs/decisions/082-values-and-placeholders-per-span.md), never by a verdict on the document;
 * and filled-in forms as they are laid out (the blanks, labels and lists of forms).
 */
let t: TestApp;
let user: HttpClient;

const docx = (items: (string | string[][])[]) => paragraphsAndTables(items);

const variablesOf = async (file: string, bytes: Buffer) => asRows(await importedVariables(user, file, bytes));

/** A filled-in order form that still has blanks in its key-terms table and its clauses. */
const HALF_FILLED_ORDER = docx([
  'ORDER FORM',
  'This Order Form is entered into as of March 3, 2026 between Northwind Analytics, Inc. (the "Customer") and Bluefin Robotics LLC (the "Provider").',
  'Key Terms',
  [
    ['Subscription Term', '12 months'],
    ['Fees', '$48,000'],
    ['Billing Contact', '{billing_contact}'],
    ['Billing Email', '{billing_email}'],
    ['Go-Live', '{go_live_date}'],
    ['Support Plan', 'Premier'],
  ],
  '1. Payment. The Customer pays each invoice within thirty (30) days of receipt.',
  '2. Notices. Notices to the Customer go to {notice_address}.',
]);

const HALF_FILLED_ORDER_VARIABLES = [
  ['value', 'agreement_date', 'March 3, 2026'],
  ['value', 'customer_name', 'Northwind Analytics, Inc.'],
  ['value', 'provider_name', 'Bluefin Robotics LLC'],
  ['value', 'subscription_term', '12 months'],
  ['value', 'fees', '$48,000'],
  ['placeholder', 'billing_contact', '{billing_contact}'],
  ['placeholder', 'billing_email', '{billing_email}'],
  ['placeholder', 'go_live_date', '{go_live_date}'],
  ['value', 'support_plan', 'Premier'],
  ['value', 'duration', 'thirty (30) days'],
  ['placeholder', 'notice_address', '{notice_address}'],
];

/** A form whose parties and date are still blank: its clauses are the publisher's standard wording. */
const BLANK_PARTIES_FORM = docx([
  'SERVICES AGREEMENT',
  'This Services Agreement is made on [Effective Date] between {{provider_name}} (the "Provider") and {{customer_name}} (the "Customer").',
  [
    ['Initial Term', '24 months'],
    ['Governing Law', 'State of Delaware'],
  ],
  '1. Payment. The Customer pays each invoice within thirty (30) days; late amounts bear interest at 1.5% per month.',
  '2. Law. This Agreement is governed by the laws of the State of New York.',
  'IN WITNESS WHEREOF, the parties have signed this Agreement.',
  'By: ____________',
  'Name: Jane Roe',
]);

const BLANK_PARTIES_FORM_VARIABLES = [
  ['placeholder', 'effective_date', '[Effective Date]'],
  ['placeholder', 'provider_name', '{{provider_name}}'],
  ['placeholder', 'customer_name', '{{customer_name}}'],
  ['value', 'initial_term', '24 months'],
  ['value', 'governing_law', 'State of Delaware'],
  ['value', 'signatory_name', 'Jane Roe'],
];

/**
 * A draft whose two parties are written in while its date and some entries are still blank (a
 * contract is dated when it is signed): its clauses are this deal's, and a heading's entries stay
 * entries beside one still to write.
 */
const PARTIES_WRITTEN_DRAFT = docx([
  'SPONSORSHIP AGREEMENT',
  'This Sponsorship Agreement is made on [Agreement Date] between Harbor Foods Ltd. (the "Sponsor") and Okapi Events LLC (the "Organizer").',
  '1. Fee. The Sponsor agrees to pay four thousand USD ($4,000.00) to the Organizer within thirty (30) days.',
  '2. Law. This Agreement is governed by the laws of Belgium.',
  'EVENT',
  'Harbourside Developer Summit',
  '{{event.venue}}',
  'BOOTH',
  'A six-foot exhibit table in the main hall.',
  'BANNER',
  '{{banner.text}}',
  'RECOGNITION',
  'Thanks in the opening remarks of each day.',
  'SIGNATURES',
]);

const PARTIES_WRITTEN_DRAFT_VARIABLES = [
  ['placeholder', 'agreement_date', '[Agreement Date]'],
  ['value', 'sponsor_name', 'Harbor Foods Ltd.'],
  ['value', 'organizer_name', 'Okapi Events LLC'],
  ['value', 'amount', 'four thousand USD ($4,000.00)'],
  ['value', 'duration', 'thirty (30) days'],
  ['value', 'governing_law', 'Belgium'],
  ['value', 'event', 'Harbourside Developer Summit'],
  ['placeholder', 'event_venue', '{{event.venue}}'],
  ['value', 'booth', 'A six-foot exhibit table in the main hall.'],
  ['placeholder', 'banner_text', '{{banner.text}}'],
  ['value', 'recognition', 'Thanks in the opening remarks of each day.'],
];

/**
 * A form printed with its issuer's name and a rule for the other party, defined right after it:
 * the rule is the other party's blank, so the form is still blank and its clause's term is the
 * issuer's wording.
 */
const ISSUER_FORM = docx([
  'This Licence Agreement is made on ____________ between The Apache Software Foundation ("Foundation") and ____________ ("You").',
  '1. You grant the Foundation a licence for 10 years.',
]);

const ISSUER_FORM_VARIABLES = [['placeholder', 'you_name', '____________']];

/** A negotiated draft: parties filled, alternatives in brackets, an instruction, an example, a drafting note. */
const NEGOTIATED_DRAFT = docx([
  'This Supply Agreement is made as of April 2, 2026 between Harbor Foods Ltd. (the "Buyer") and Okapi Farms LLC (the "Seller").',
  '1. Price. The Buyer pays $12,000 per shipment [or $15,000 if the Express Option is chosen].',
  'Delivery Date: [Insert date, e.g. January 1, 2025]',
  'Note to Draft: the parties are still discussing a cap of $250,000.',
  '2. Interest. Late payments bear interest at a monthly rate (for example, 1.5%) that the Seller sets.',
  '† The Seller may propose a rebate of 3% in the next round.',
]);

const NEGOTIATED_DRAFT_VARIABLES = [
  ['value', 'agreement_date', 'April 2, 2026'],
  ['value', 'buyer_name', 'Harbor Foods Ltd.'],
  ['value', 'seller_name', 'Okapi Farms LLC'],
  ['value', 'amount', '$12,000'],
  ['placeholder', 'date', '[Insert date, e.g. January 1, 2025]'],
];

/** A standard form addressed to "you", with a run-in heading's clause and label lines of blanks. */
const STANDARD_FORM = docx([
  'This Card Acceptance Agreement is by and between Card, Inc., a New York corporation, and you, the Merchant.',
  'Merchant Name: {merchant_name}',
  'Penalty Formula: penalty = number of late units x the agreed daily rate x the penalty factor',
  'Vessel: <<Vessel>> Voyage number: <<Voyage Number>>',
]);

const STANDARD_FORM_VARIABLES = [
  ['placeholder', 'merchant_name', '{merchant_name}'],
  ['placeholder', 'vessel', '<<Vessel>>'],
  ['placeholder', 'voyage_number', '<<Voyage Number>>'],
];

/** A contract filed with the SEC, its confidential terms redacted. */
const REDACTED_CONTRACT = docx([
  'This Distribution Agreement is made as of June 9, 2014 between Acme Pharma, Inc. (the "Supplier") and [***] (the "Distributor").',
  'Price\t[*****]',
  '1. Royalty. The Distributor pays a royalty of [***]% of Net Sales within [**] days of each quarter.',
  '2. Minimum. The minimum purchase is $[* * *] per quarter; the milestone payment is *** dollars.',
  '3. Term. This Agreement remains in effect for five (5) years.',
  'Exclusivity Fee: [***]',
  'Minimum Order: *** units per quarter',
]);

const REDACTED_CONTRACT_VARIABLES = [
  ['value', 'agreement_date', 'June 9, 2014'],
  ['value', 'supplier_name', 'Acme Pharma, Inc.'],
  ['value', 'duration', 'five (5) years'],
];

/** Values the wording only quotes, beside quoted defined terms. */
const QUOTED_VALUES = docx([
  'This Rental Deposit Agreement (the "Agreement") is made on May 1, 2026.',
  'The Tenant "Michael" shall deposit with the Landlord "Parsa" the sum of 3000 USD.',
  'The deposit is held in an interest bearing account in "Bank of America".',
  '"Premises" means the apartment the Tenant rents; the "Deposit" is the sum above.',
  'This Agreement is construed in accordance with the laws of "New Jersey".',
]);

const QUOTED_VALUE_VARIABLES = [
  ['value', 'agreement_date', 'May 1, 2026'],
  ['value', 'tenant_name', 'Michael'],
  ['value', 'landlord_name', 'Parsa'],
  ['value', 'amount', '3000 USD'],
  ['value', 'name', 'Bank of America'],
  ['value', 'governing_law', 'New Jersey'],
];

/** A cover page's key-terms table whose value cells are sentences. */
const SENTENCE_CELLS = docx([
  'This Support Order is made as of February 2, 2026 between Quillon Therapeutics, Inc. (the "Customer") and Nordlys Software AB (the "Provider").',
  [
    [
      'Technical Support',
      'Email and chat support during business hours, Monday through Friday, 9 AM to 5 PM ET.',
    ],
    [
      'Service Levels',
      'The Provider answers Priority 1 incidents within one hour. Other incidents are answered on the next business day.',
    ],
    ['Data Location', 'All customer data is stored and processed in the European Union'],
  ],
]);

const SENTENCE_CELL_VARIABLES = [
  ['value', 'agreement_date', 'February 2, 2026'],
  ['value', 'customer_name', 'Quillon Therapeutics, Inc.'],
  ['value', 'provider_name', 'Nordlys Software AB'],
  [
    'value',
    'technical_support',
    'Email and chat support during business hours, Monday through Friday, 9 AM to 5 PM ET.',
  ],
  [
    'value',
    'service_levels',
    'The Provider answers Priority 1 incidents within one hour. Other incidents are answered on the next business day.',
  ],
  ['value', 'data_location', 'All customer data is stored and processed in the European Union'],
];

// Filled-in forms as they are laid out (decision 082, "Forms as they are laid out"): each document
// holds one pattern, answered alike as DOCX and as PDF, except the corner marks, which LibreOffice's
// fonts do not print.

const formDocx = (items: (string | string[][])[]) => paragraphsAndTables(items, [4000, 5000]);

/** A form whose write-in boxes are drawn with corner marks, some filled, some left. */
const CORNER_BOXES = formDocx([
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
const INSTRUCTIONS = formDocx([
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
const LABEL_LINES = formDocx([
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
const LAID_OUT = formDocx([
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
const NUMBERS_AND_OPTIONS = formDocx([
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

/** Conventions of contracts and forms beyond the development forms' layouts (decision 082, third pass). */
const FORM_CONVENTIONS = formDocx([
  'Content Licensing Agreement',
  'This agreement is made on March 3, 2026 between Bluefin Robotics LLC and Northwind Analytics, Inc.',
  '1. Orders. The Licensee places each order within a thirty (30) day period and pays Two Thousand Dollars ($2,000.00) for each Two (2) Year licence; interest accrues on the basis of a three hundred sixty-five (365) day year.',
  '2. Notices. Notices go to Harbor Data GmbH 600 Kenrick, Suite B-12 Houston, Texas 77060, and to the agent at 519 Kimball Avenue, Vinton, Virginia 24179 P.O. Box 13007 Roanoke, Virginia 24030.',
  '3. Venue. The promoter of 275 Madison Avenue, 6th Floor, New York, NY 10016 books the venues.',
  'Copies go to Harbor Data GmbH 3753 Howard Hughes Pkwy. Suite 200 6795 Edmond St 3rd Floor Las Vegas, NV 89169',
  'IN WITNESS WHEREOF, the parties have signed this Agreement.',
  'Heim Brecht Stefan Meyer ______________ ______________ Name (Please print) Name (Please print)',
  'CIO COO ______________ ______________ Title/Position Title/Position',
  'Maria L. Okafor',
  '______________________',
  'Name',
  'Chief Executive Officer',
  '______________________',
  'Title',
]);

const FORM_CONVENTION_VARIABLES = [
  ['value', 'agreement_date', 'March 3, 2026'],
  ['value', 'party_1_name', 'Bluefin Robotics LLC'],
  ['value', 'party_2_name', 'Northwind Analytics, Inc.'],
  ['value', 'duration', 'thirty (30) day'],
  ['value', 'amount', 'Two Thousand Dollars ($2,000.00)'],
  ['value', 'duration_2', 'Two (2) Year'],
  ['value', 'organization_name', 'Harbor Data GmbH'],
  ['value', 'address', '600 Kenrick, Suite B-12 Houston, Texas 77060'],
  ['value', 'address_2', '519 Kimball Avenue, Vinton, Virginia 24179'],
  ['value', 'address_3', 'P.O. Box 13007 Roanoke, Virginia 24030'],
  ['value', 'address_4', '275 Madison Avenue, 6th Floor, New York, NY 10016'],
  ['value', 'signatory_name', 'Heim Brecht'],
  ['value', 'signatory_name_2', 'Stefan Meyer'],
  ['value', 'signatory_title', 'CIO'],
  ['value', 'signatory_title_2', 'COO'],
  ['value', 'signatory_name_3', 'Maria L. Okafor'],
  ['value', 'signatory_title_3', 'Chief Executive Officer'],
];

// How forms in general lay their values out (docs/decisions/085-values-as-forms-lay-them-out.md).
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

/**
 * A form laid out as headings, each over the lines written in for it (an interconnection MOU),
 * then a contract's clauses under headings in capitals: a short clause among long ones is no entry.
 * The authority's sentence runs to the end of its printed line, so the PDF sets the heading under
 * it straight after its full stop.
 */
const HEADED_ENTRIES = paragraphsAndTables([
  'MEMORANDUM OF UNDERSTANDING',
  'AUTHORITY',
  'The authority for this memorandum is the Economy Act and the information security policies of both agencies and of their bureaus as in force on the day it is signed.',
  'BACKGROUND',
  'The two systems exchange applicant records nightly so that grant applications can be checked.',
  'SYSTEM A',
  'A payment platform that sends disbursements to approved recipients.',
  'Hosted in a FedRAMP Moderate authorized public cloud.',
  'REVIEW',
  'The parties shall review this memorandum every year.',
  'TIMELINE',
  'This memorandum ends on December 31, 2027.',
  'SIGNATORY AUTHORITY',
  'I agree to the terms of this Memorandum of Understanding.',
  [['Signature', 'Date']],
  'LICENCE AGREEMENT',
  'GRANT',
  'Licensor grants Licensee a licence to use the Software on the terms of this agreement, which Licensee accepts. The licence covers every copy Licensee makes for its own business, and no copy may be given to anyone else without the written consent of Licensor given in advance.',
  'WARRANTY',
  'Licensor warrants that it owns the Software.',
  'LIABILITY',
  'Neither party is liable to the other for any loss of profit, revenue or data, whatever its cause, except where the loss results from its wilful misconduct. This limit does not apply to a breach of the confidentiality terms of this agreement.',
  'NOTICES',
  'Notices go to the addresses at the head of this agreement.',
]);

const HEADED_ENTRY_VARIABLES = [
  [
    'value',
    'authority',
    'The authority for this memorandum is the Economy Act and the information security policies of both agencies and of their bureaus as in force on the day it is signed.',
  ],
  [
    'value',
    'background',
    'The two systems exchange applicant records nightly so that grant applications can be checked.',
  ],
  ['value', 'system_a', 'A payment platform that sends disbursements to approved recipients.'],
  ['value', 'system_a_2', 'Hosted in a FedRAMP Moderate authorized public cloud.'],
  ['value', 'date', 'December 31, 2027'],
];

/**
 * A contract in plain English, its clauses under headings in capitals, several one sentence long
 * and none drafted with "shall" ("will", "must", "may", "warrants", "this Agreement"), after a
 * table of contents whose titles stand under capital headings with their page numbers: no entry.
 */
const HEADED_CLAUSES = paragraphsAndTables([
  'SERVICES AGREEMENT',
  'CONTENTS',
  'ARTICLE I',
  'Services and Deliverables 2',
  'ARTICLE II',
  'Fees and Payment Terms 3',
  'ARTICLE III',
  'Warranties and Liability 4',
  'ARTICLE IV',
  'This Services Agreement is made on May 1, 2024 between Acme Inc., a Delaware corporation ("Acme"), and Globex LLC, a Texas limited liability company ("Customer").',
  'SERVICES',
  'Acme will provide the Services described in each Order Form.',
  'FEES',
  'The Customer must pay each invoice within the period stated in its Order Form.',
  'WARRANTY',
  'Each party warrants that it has full authority to enter into this Agreement.',
  'ASSIGNMENT',
  'Neither party may assign its rights without the written consent of the other.',
  'ENTIRE AGREEMENT',
  'This Agreement is the entire agreement between the parties about its subject matter.',
  'GOVERNING LAW',
  'The laws of the State of New York govern this contract.',
]);

const HEADED_CLAUSE_VARIABLES = [
  ['value', 'date', 'May 1, 2024'],
  ['value', 'party_1_name', 'Acme Inc.'],
  ['value', 'customer_name', 'Globex LLC'],
  ['value', 'governing_law', 'State of New York'],
];

/**
 * A form filled in in block capitals, as forms ask to be: the second system's entry runs to the
 * end of its printed line with a full stop, and its next sentence, a short line in capitals, is
 * the same paragraph, not a heading.
 */
const HEADED_CAPITALS = paragraphsAndTables([
  'MEMORANDUM OF UNDERSTANDING',
  'SYSTEM A',
  'PERMIT INTAKE PORTAL, A PAYMENT PLATFORM FOR APPROVED RECIPIENTS.',
  'SYSTEM B',
  'IDENTITY VERIFICATION GATEWAY, A CASE MANAGEMENT APPLICATION FOR STAFF. IT IS HOSTED ON A COMMUNITY CLOUD.',
  'BACKGROUND',
  'THE TWO SYSTEMS EXCHANGE APPLICANT RECORDS NIGHTLY.',
  'SECURITY',
  'BOTH SYSTEMS KEEP AUDIT LOGS OF THE INTERCONNECTION.',
  'SIGNATORY AUTHORITY',
  'I agree to the terms of this Memorandum of Understanding.',
]);

/**
 * An annex that asks, section by section, what the parties fill in (the EU's standard contractual
 * clauses): a heading, its question ending with a colon, the answer under it; a draft's answer
 * still to write is a line of dots. Questions of several lengths, so that in the PDF one ends its
 * printed line close to the margin. A contract's heading over a list's lead-in stands alone.
 */
const PROMPTED_ENTRIES = paragraphsAndTables([
  'APPENDIX 1 TO THE STANDARD CONTRACTUAL CLAUSES',
  'Data exporter',
  'The data exporter is (please specify briefly your activities relevant to the transfer):',
  'An online shop for household goods with customers in the Benelux.',
  'Data importer',
  'The data importer is (please specify briefly activities relevant to the transfer of the data):',
  'A call centre that answers customer questions on behalf of the exporter.',
  'Data subjects',
  'The personal data transferred concern the following categories of data subjects, as listed here:',
  'Customers and prospective customers of the data exporter.',
  'Categories of data',
  'The personal data transferred concern the following categories of data, which the exporter holds:',
  '……………………',
  'Processing operations',
  'The personal data transferred will be subject to the following basic processing activities and uses:',
  'Storage, back-up and recovery of the data in the importer’s data centre.',
  'DATA EXPORTER',
  'Name: Fleur Janssens',
  'Definitions',
  'In this Agreement the following words have these meanings, unless the context requires otherwise:',
  'Affiliate means any entity that controls a party.',
]);

const PROMPTED_ENTRY_VARIABLES = [
  ['value', 'data_exporter', 'An online shop for household goods with customers in the Benelux.'],
  ['value', 'data_importer', 'A call centre that answers customer questions on behalf of the exporter.'],
  ['value', 'data_subjects', 'Customers and prospective customers of the data exporter.'],
  ['placeholder', 'the_personal_data_transferred_concern_the_following_categories_o', '……………………'],
  [
    'value',
    'processing_operations',
    'Storage, back-up and recovery of the data in the importer’s data centre.',
  ],
  ['value', 'signatory_name', 'Fleur Janssens'],
];

const HEADED_CAPITALS_VARIABLES = [
  ['value', 'system_a', 'PERMIT INTAKE PORTAL, A PAYMENT PLATFORM FOR APPROVED RECIPIENTS.'],
  [
    'value',
    'system_b',
    'IDENTITY VERIFICATION GATEWAY, A CASE MANAGEMENT APPLICATION FOR STAFF. IT IS HOSTED ON A COMMUNITY CLOUD.',
  ],
  ['value', 'background', 'THE TWO SYSTEMS EXCHANGE APPLICANT RECORDS NIGHTLY.'],
  ['value', 'security', 'BOTH SYSTEMS KEEP AUDIT LOGS OF THE INTERCONNECTION.'],
];

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
  order: HALF_FILLED_ORDER,
  form: BLANK_PARTIES_FORM,
  written: PARTIES_WRITTEN_DRAFT,
  issuer: ISSUER_FORM,
  draft: NEGOTIATED_DRAFT,
  standard: STANDARD_FORM,
  redacted: REDACTED_CONTRACT,
  quoted: QUOTED_VALUES,
  cells: SENTENCE_CELLS,
  corners: CORNER_BOXES,
  instructions: INSTRUCTIONS,
  labels: LABEL_LINES,
  layout: LAID_OUT,
  numbers: NUMBERS_AND_OPTIONS,
  conventions: FORM_CONVENTIONS,
  answers: LABELLED_ANSWERS,
  columns: COLUMN_TABLE,
  cover: COVER_AND_SIGNATURES,
  running: RUNNING_TEXT,
  headed: HEADED_ENTRIES,
  'headed-clauses': HEADED_CLAUSES,
  'headed-capitals': HEADED_CAPITALS,
  prompted: PROMPTED_ENTRIES,
};
let pdfs: Record<string, Buffer>;

beforeAll(async () => {
  ({ t, user } = await startSignedIn());
  // The PDFs as users make them: the same DOCX printed by LibreOffice, all in one run.
  pdfs = await printedByLibreOffice(DOCUMENTS);
}, 240_000);
afterAll(() => t.close());

describe('POST /api/contracts/import: drafts hold both kinds, decided per span', () => {
  it.each([
    ['a half-filled order form: its filled values and its blanks', 'order', HALF_FILLED_ORDER_VARIABLES],
    [
      'a form whose parties and date are blank: only the values at a slot, not its clauses’ standard wording',
      'form',
      BLANK_PARTIES_FORM_VARIABLES,
    ],
    [
      'a draft whose parties are written and its date still blank: its clauses’ values, and entries beside one to write',
      'written',
      PARTIES_WRITTEN_DRAFT_VARIABLES,
    ],
    [
      'a form printed with its issuer’s name: the other party’s rule, named by its definition, and no clause value',
      'issuer',
      ISSUER_FORM_VARIABLES,
    ],
    [
      'a negotiated draft: no value inside brackets, an instruction, an example or a drafting note',
      'draft',
      NEGOTIATED_DRAFT_VARIABLES,
    ],
    [
      'a standard form addressed to “you”: its issuer, a run-in heading’s clause and what meets a blank are no values',
      'standard',
      STANDARD_FORM_VARIABLES,
    ],
    [
      'a filed contract’s redaction marks: neither placeholders nor values, and no template made of it',
      'redacted',
      REDACTED_CONTRACT_VARIABLES,
    ],
    ['values the wording only quotes, not quoted defined terms', 'quoted', QUOTED_VALUE_VARIABLES],
    [
      'a key-terms table whose value cells are sentences, each named after its label',
      'cells',
      SENTENCE_CELL_VARIABLES,
    ],
  ] as const)('answers %s, as DOCX and as PDF', async (_label, key, expected) => {
    expect(await variablesOf(`${key}.docx`, DOCUMENTS[key])).toEqual(expected);
    expect(await variablesOf(`${key}.pdf`, pdfs[key]!)).toEqual(expected);
  });
});

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
    [
      'a duration in words and figures before its unit, an address after a name, after “of” and after another’s ZIP code (one street number each), captions printed under a signature’s rules',
      'conventions',
      FORM_CONVENTION_VARIABLES,
    ],
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
    [
      'a form’s entries under its headings in capitals, not a clause drafted with “shall”, a date’s line, the section before the signatures or a short clause among a contract’s long ones',
      'headed',
      HEADED_ENTRY_VARIABLES,
    ],
    [
      'no entry under a contract’s headings in capitals: clauses in plain English (“will”, “must”, “may”, “warrants”, “this Agreement”) and a table of contents’ titles',
      'headed-clauses',
      HEADED_CLAUSE_VARIABLES,
    ],
    [
      'a form’s entry in block capitals whose printed line ends with a sentence’s full stop before a short last line: one entry',
      'headed-capitals',
      HEADED_CAPITALS_VARIABLES,
    ],
    [
      'an annex’s answers under its headed questions, one still to write, and no answer to a contract’s lead-in',
      'prompted',
      PROMPTED_ENTRY_VARIABLES,
    ],
  ] as const)('answers %s, as DOCX and as PDF', async (_label, key, expected) => {
    expect(await variablesOf(`${key}.docx`, DOCUMENTS[key])).toEqual(expected);
    expect(await variablesOf(`${key}.pdf`, pdfs[key]!)).toEqual(expected);
  });
});
