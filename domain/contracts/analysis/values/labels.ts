/**
 * Values under a label: the value column of a key-terms or cover-page table (a row is one line,
 * `Label\tValue`), label lines (`Effective Date: March 1, 2026`), and signature blocks
 * (`By: /s/ Jane Doe`, `Name: Jane Doe`, `Title: CEO`) under the heading of the party signing
 * (`PROVIDER:`, `TechCo Inc.`), whose role names them (`provider_signatory_name`).
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import { cellsOf, type Span, subSpan } from './lines.ts';
import { isEntitySuffix, nameAt } from './names.ts';
import type { Party } from './parties.ts';
import {
  CONFORMED_SIGNATURE,
  SIGNATURE_LABEL,
  SIGNATURE_LABELS,
  signatoryName,
  signatureFields,
} from './signature-fields.ts';
import {
  DESCRIBED_LABEL_CHARS,
  isClause,
  isHeaderRow,
  isLabel,
  isLabelRow,
  isLineLabel,
} from './table-rows.ts';
import { typedValues } from './typed.ts';

/** What the lines before tell about the one being read. */
export interface LabelContext {
  parties: readonly Party[];
  /** The role of the party whose signature block is being read, from its heading. */
  role: string | null;
  /** Roles by column, from a table row of party headings (signature blocks side by side). */
  columnRoles: (string | null)[];
  /** What each column holds, from the header row of the table being read (`Name\tAddress\tEmail`). */
  columnHeadings?: string[];
}

/** A blank to fill, a term still to settle ("TBD", "To be agreed") or a signature line: not a value. */
const BLANK =
  /^[\s_.…\-–—/:()]*$|^\[\s*\]$|^N\/?A$|^(?:TBD|TBA|TBC|to be (?:determined|agreed|confirmed))\.?$/i;
/**
 * A rule drawn with dots or underscores and the capacity printed after it ("……… Community Member",
 * "________ Director"): the line where a signer signs, captioned with the capacity; no value.
 */
const SIGNATURE_RULE = /^(?:\.{5}|_{5}|…{3})/;
/** Redacted ("XXXXXXX", "[***]") or a choice still to tick ("[ ] Yes [ ] No"): no value to keep. */
const REDACTED = /^[Xx*#]{3,}$|\[\s?\]/;
/**
 * What a form tells whoever fills it in, standing where the entry goes: an imperative ("Please
 * fill out here", "Insert the project's name", "Specify …") or a question ("Specify any
 * preferred hashtags or brand guidelines?"). A prompt, never the deal's value.
 */
const PROMPT = /^(?:please\s|(?:fill|insert|enter|specify|complete)\s)|\?$/i;
/** A definition right after a value: ` (“Project”)`, ` (the "Company")`. */
const DEFINITION_AFTER = / ?\((?:the |hereinafter )?["“][^"”()]{1,60}["”]\)$/;
/**
 * The units and the slash a form prints between two blanks of one line (`⎣___⎦ % / $ ⎣___⎦`,
 * "in percentages or dollar amounts"): standing apart from any figure, they belong to no value.
 */
const PRINTED_BETWEEN = / (?:[%$€£] )?\/ (?:[%$€£] )?/;
/** A figure alone: an amount, a percentage, a number. */
const FIGURE = /^[$€£]?\d[\d,.]*%?$/;
function isSignatureLabel(label: string): boolean {
  return SIGNATURE_LABELS[label.replace(/:$/, '').trim().toLowerCase()] !== undefined;
}

/** The role of the party a heading names ("PROVIDER:", "TechCo Inc.", "Acme (Customer)"), or null. */
export function roleOf(heading: string, parties: readonly Party[]): string | null {
  const bare = heading
    .replace(/:$/, '')
    .replace(/^(?:for and on behalf of|on behalf of|for)\s+/i, '')
    .trim()
    .toLowerCase();
  if (!bare || bare.length > 80) return null;
  for (const party of parties) {
    const names = [party.name, party.nickname, party.term].filter(Boolean).map((n) => n!.toLowerCase());
    // "TechCo Inc.", "TechCo Inc. (Provider)", "Provider": the whole line names the party.
    const named = (n: string) => bare === n || (bare.startsWith(`${n} (`) && bare.endsWith(')'));
    if (names.some((n) => named(n) || bare.endsWith(`(${n})`))) return party.role;
  }
  return null;
}

/** The role of the party whose name ends a sentence's line ("… written. Distributor: Acme, Inc."), or null. */
function trailingRole(line: string, parties: readonly Party[]): string | null {
  const lower = line.toLowerCase().replace(/:$/, '');
  for (const party of parties) {
    for (const name of [party.name, party.nickname, party.term]) {
      if (!name || name.length < 3) continue;
      const n = name.toLowerCase();
      if (lower.length > n.length && lower.endsWith(n) && /[.:]\s$/.test(lower.slice(0, -n.length).slice(-2)))
        return party.role;
    }
  }
  return null;
}

/** A label's variable name, given the role of the block it stands in. */
function labelName(label: string, role: string | null, value: string): string {
  const key = label.replace(/:$/, '').trim().toLowerCase();
  const signature = SIGNATURE_LABELS[key];
  if (signature) return role ? `${role}_${signature}` : signature;
  const name = toSnakeCase(label);
  if (role) return `${role}_${name}`;
  // "Provider\tTechCo Inc.": a party named under its role's label.
  const party = nameAt(value);
  if (party?.entity && party.text === value && !name.endsWith('name')) return `${name}_name`;
  return name;
}

/** A key-terms cell of wording is at most this long; a longer one is a clause set out as a table. */
const MAX_CELL_VALUE = 300;
/**
 * An attachment's or a part's caption before its title: "Exhibit A", "Schedule 2", "Section 4.1";
 * and a numbered alternative's or step's ("Option 1: Direct via Open Collective", "Step 2: …"):
 * a form that offers choices or steps names each one in print, whichever is chosen.
 */
const CAPTION =
  /^(?:Exhibit|Schedule|Annex|Appendix|Attachment|Article|Section|Part|Option|Alternative|Step)\s+[A-Z0-9][A-Z0-9.-]{0,5}$/i;
/**
 * The label of a form's own version or edition ("Version: OBC-GDPR-DUA 1.0.1", "Rev. 03/2019",
 * "Form Version: 2.1"): publishers print which edition of the form this is on every copy, so that
 * whoever signs knows the terms; it identifies the form, not the deal.
 */
const FORM_VERSION =
  /^(?:(?:Form |Document |Template )?(?:Version|Revision|Edition)|Rev\.?|Form (?:No|Number)\.?)$/i;
/** A label that is a reference ("Section 2.1\tThe Company shall …"): the row is a clause, not a term. */
const REFERENCE_LABEL = /^(?:Section|Article|Clause|Exhibit|Schedule|Annex|Appendix|Part|Paragraph)\b/i;

/**
 * The value of one label: the whole text when it is short and not a sentence; in a key-terms or
 * cover-page table (`cell`), the whole value cell whatever it says ("Email and chat support during
 * business hours, Monday through Friday, 9 AM to 5 PM ET"): a form's table puts one term in each
 * row, and its value cell is what the blank held.
 */
function labelled(
  label: string,
  value: Span,
  role: string | null,
  inWording = false,
  cell = false,
): Candidate[] {
  let text = value.text;
  let index = value.index;
  const conformed = CONFORMED_SIGNATURE.exec(text);
  if (conformed) {
    text = text.slice(conformed[0].length);
    index += conformed[0].length;
  }
  // "Grantor: Grantee:": the next label, not a value.
  if (text.endsWith(':')) return [];
  text = text.replace(/[,;]$/, '');
  // The full stop after a name, a date or a figure ends the line's sentence, not the value; an
  // abbreviation's ("Acme Inc.", "U.S.A.") is the value's. A value of wording written in as an
  // answer ("Incidents are reported … in writing.", "Hosted in a public cloud.") is the sentence
  // as written, its full stop with it: a form's blank or cell held the whole sentence.
  const lastWord = text.slice(text.lastIndexOf(' ') + 1);
  if (text.endsWith('.') && !isEntitySuffix(lastWord) && !/^(?:[A-Z]\.)+$/.test(lastWord) && !isProse(text))
    text = text.slice(0, -1);
  if (!text || BLANK.test(text) || REDACTED.test(text) || PROMPT.test(text) || SIGNATURE_RULE.test(text))
    return [];
  // "Project: Morphia (“Project”)": a definition in parentheses follows what it defines, and
  // the term is no part of the value (contracts write `Acme Inc. (the "Company")`).
  const definition = DEFINITION_AFTER.exec(text);
  if (definition && definition.index > 0) text = text.slice(0, definition.index);
  // "80% / $7,000", "Morphia % / $ 1,500": two blanks the form prints its units between.
  const between = !cell && PRINTED_BETWEEN.exec(text);
  if (between && between.index > 0) {
    const second = between.index + between[0].length;
    const parts = [
      { text: text.slice(0, between.index), index },
      { text: text.slice(second), index: index + second },
    ];
    if (parts.some((part) => FIGURE.test(part.text)) && !PRINTED_BETWEEN.test(parts[1]!.text))
      return parts.flatMap((part) => labelled(label, part, role, inWording));
  }
  if (cell && text.length <= MAX_CELL_VALUE && !REFERENCE_LABEL.test(label) && !isSignatureLabel(label))
    return [{ type: 'value', name: labelName(label, role, text), named: true, text, index }];
  if (text.length > 150 || text.split(' ').length > 20) return [];
  // A signatory's name is a person's, up to the next field ("Jane Doe By"); the clause's own
  // "Name:" (the party's, under its role's label) is not a signature field.
  if (SIGNATURE_LABELS[label.replace(/:$/, '').trim().toLowerCase()] === 'signatory_name') {
    const person = signatoryName(text);
    if (!person) return [];
    index += text.indexOf(person);
    text = person;
  }
  // Sentences after a colon are the contract's wording, not a filled-in value, and so is a numbered
  // item ("10. Search …"). A single sentence written in as a labelled item's answer ("Personnel
  // Changes: Each party tells the other of a change of system owner promptly.") is a value: a
  // contract's own clause speaks of the instrument and binds with "shall" (`CLAUSE_WORDING`), a
  // form's answer states the facts of this deal.
  if (/[a-z]\. [A-Z]/.test(text) || /^\d{1,3}\.\s/.test(text)) return [];
  if (/^(?:the|each|all|any)\s/i.test(text) ? !isAnswer(text) : /^(?:this|if|in|as)\s/i.test(text)) return [];
  // "Formula for breach penalty calculation: penalty = number of …": after a run-in heading, a
  // clause in lower case is the contract's wording going on; a filled-in value is a name, a
  // figure, a date or a short phrase.
  if (
    inWording &&
    /^\p{Ll}/u.test(text) &&
    text.split(' ').length >= 6 &&
    termsInWording(text, index).length === 0
  )
    return [];
  const name = labelName(label, role, text);
  // A table's value cell is the value as a whole ("$1.2740 per share"); a label line's may be wording.
  const terms = inWording ? termsInWording(text, index) : [];
  if (terms.length > 0) return terms.map((term, i) => (i === 0 ? { ...term, name, named: true } : term));
  return [{ type: 'value', name, named: true, text, index }];
}

/**
 * Wording rather than a name, a date or a figure: four words or more, two of them in lower case
 * ("Hosted in a FedRAMP Moderate authorized public cloud.", not "Nairobi, Kenya." or "June 2, 2026.").
 */
function isProse(text: string): boolean {
  const words = text.split(' ');
  return words.length >= 4 && words.filter((w) => /^\p{Ll}/u.test(w)).length >= 2;
}

/**
 * What binds the parties in a contract's own clauses: the operative "shall" (and "agrees"), and the
 * instrument speaking of itself ("this Agreement", "hereunder", "herein"). A clause after a run-in
 * heading ("Governing Law: The Agreement shall be governed …") has them; a form's answer, which
 * states this deal's facts ("Each party tells the other of a change of system owner promptly."), does not.
 */
const CLAUSE_WORDING =
  /\b(?:shall|agrees?|hereby|herein|hereunder|hereof|hereto|this (?:Agreement|Contract|Memorandum|MOU|Lease|Order|Amendment|agreement|contract))\b/;
/** A single sentence of a labelled item that answers the label rather than continuing the contract. */
function isAnswer(text: string): boolean {
  return isProse(text) && !CLAUSE_WORDING.test(text);
}

const TERM_TYPES = new Set(['amount', 'percentage', 'duration', 'date']);

/**
 * "3 months after termination", "$10 per CD", "Quarterly; 30 days after end of quarter": a term
 * inside the contract's wording is the value, the words around it are not. Empty when the value
 * holds no term or is the term alone.
 */
function termsInWording(text: string, index: number): Candidate[] {
  const terms = typedValues({ text, index })
    .filter((c) => TERM_TYPES.has(c.type))
    .sort((a, b) => a.index - b.index);
  if (terms.length === 0) return [];
  let rest = text;
  for (const term of terms) rest = rest.replace(term.text, ' ');
  const words = rest.split(/[\s;,]+/).filter(Boolean);
  return words.some((w) => /^[a-z]/.test(w)) ? terms : [];
}

/**
 * Where another label starts inside a label's value ("EXCHANGE FEE: $10 per CD SUPPORT FEE:
 * $25,000 per year", "Fax: (702) 555-0110 Telephone No: (702) 555-0111"): up to four words in
 * capitals or three capitalised words before a colon, or −1. Each colon is looked at once, with the 40 characters
 * before it: linear in the line.
 */
function nextCapitalLabel(text: string, from: number): number {
  for (let colon = text.indexOf(':', from); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    const before = text.slice(Math.max(from, colon - 40), colon);
    const label =
      /(?:^|\s)((?:[A-Z][A-Z'&/-]* ){0,3}[A-Z][A-Z'&/-]+|(?:[A-Z][a-z.]* ){0,2}[A-Z][a-z.]+)$/.exec(before);
    if (label) return colon - label[1]!.length;
  }
  return -1;
}

/** "Label: value", with more signature labels on the same line split apart. */
function labelLine(span: Span, context: LabelContext, role: string | null): Candidate[] {
  const colon = span.text.indexOf(':');
  // "https://…": a web address's colon, not a label's.
  if (colon > 0 && span.text.startsWith('//', colon + 1)) return signatureFields(span, context.parties, role);
  const signature = /^(?:By|Name|Title|Its|Date|Position|Print Name|Printed Name|Signature)$/i;
  if (
    colon <= 0 ||
    colon > DESCRIBED_LABEL_CHARS ||
    !isLineLabel(span.text.slice(0, colon)) ||
    signature.test(span.text.slice(0, colon).trim())
  ) {
    return signatureFields(span, context.parties, role);
  }
  // "Please sign: /s/ Jane Roe Date: …": a conformed signature (the typed name after "/s/" stands
  // for the hand's, SEC Regulation S-T Rule 302) names the person signing, whatever the label
  // says; the name's initials are no run-in labels ("O. Mensah Date:").
  if (CONFORMED_SIGNATURE.test(span.text.slice(colon + 1).trimStart()))
    return signatureFields(span, context.parties, role);
  const label = span.text.slice(0, colon);
  // "Exhibit A: Sponsor Guidelines": a caption names the attachment, it holds no value; nor does a
  // form's version line ("Version: OBC-GDPR-DUA 1.0.1"), printed the same on every copy.
  if (CAPTION.test(label) || FORM_VERSION.test(label)) return [];
  const ownRole = roleOf(label, context.parties);
  if (ownRole) {
    // "PROVIDER: TechCo Inc.": the heading of a signature block, with the party's name.
    context.role = ownRole;
    return labelled('party', subSpan(span, colon + 1), null).map((c) => ({ ...c, name: `${ownRole}_name` }));
  }
  const parts = enumeratedFields(label, subSpan(span, colon + 1));
  if (parts) return parts;
  // "Effective Date: March 1, 2026", up to a signature label on the same line…
  const next = [...span.text.slice(colon).matchAll(SIGNATURE_LABEL)][0];
  const signatureAt = next ? colon + next.index : span.text.length;
  // …and each label run into the line ("FEE: $10 SUPPORT FEE: $25,000", "Fax: … Attention: Legal").
  const found: Candidate[] = [];
  let current = label;
  let valueStart = colon + 1;
  for (;;) {
    const capital = nextCapitalLabel(span.text, valueStart);
    if (capital < 0 || capital >= signatureAt) break;
    found.push(...labelled(current, subSpan(span, valueStart, capital), role, true));
    const labelEnd = span.text.indexOf(':', capital);
    current = span.text.slice(capital, labelEnd);
    valueStart = labelEnd + 1;
  }
  found.push(...labelled(current, subSpan(span, valueStart, signatureAt), role, true));
  if (next) found.push(...signatureFields(subSpan(span, signatureAt), context.parties, role));
  return found;
}

/**
 * A label that asks for several things at once, and the answer that gives each in turn, set off
 * by commas: "Contact person’s name, position and contact details: Grace Adeyemi, Chief
 * Operating Officer, grace@acme.es", "Name and title: Jane Roe, CEO". Each part is a value of its
 * own, named by what the label asks for; when the parts do not match the label's, the line is read
 * as any label's (an address holds commas of its own).
 */
function enumeratedFields(label: string, value: Span): Candidate[] | null {
  const asked = label.split(/, | and /);
  if (asked.length < 2 || asked.length > 4 || asked.some((item) => !item.trim())) return null;
  // "Name and title", "name, position and contact details"; not a heading's "Disasters and Other
  // Contingencies", whose answer is a sentence.
  if (!label.includes(', ') && asked.some((item) => item.trim().split(' ').length > 2)) return null;
  const answers = value.text.trim().replace(/\.$/, '').split(', ');
  if (answers.length !== asked.length || answers.some((answer) => !answer || answer.split(' ').length > 8))
    return null;
  // A date's or an address's own comma ("August 17, 2027") is no boundary between answers.
  if (typedValues(value).some((c) => c.text.includes(', '))) return null;
  const found: Candidate[] = [];
  let at = value.index + value.text.indexOf(answers[0]!);
  answers.forEach((answer, i) => {
    const name = toSnakeCase(asked[i]!);
    found.push({ type: 'value', name, named: true, text: answer, index: at });
    at += answer.length + 2;
  });
  return found;
}

const COLUMN_HEADINGS = new Set([
  'value',
  'values',
  'details',
  'detail',
  'description',
  'terms',
  'term',
  'information',
  'selection',
  'entry',
  'response',
]);

/** A body row under a header row: each filled cell a value named after its column's heading. */
function columnValues(cells: readonly Span[], headings: readonly string[], role: string | null): Candidate[] {
  return cells.flatMap((cell, i) =>
    cell.text && headings[i] ? labelled(headings[i]!, cell, role, false, true) : [],
  );
}

/**
 * The values of one line. `row` is the line's cells with the blank ones at its ends (`rowCells`),
 * which the trimmed line leaves out: a body row under a header row is read by its columns.
 */
export function labelledValues(
  line: Span,
  context: LabelContext,
  row: readonly Span[] = cellsOf(line),
): Candidate[] {
  const cells = cellsOf(line);
  // A clause ends the signature block (or notice block) whose heading named the role.
  if (cells.length === 1 && isClause(line.text)) context.role = null;
  // A paragraph ends the table whose header row named the columns; a row whose only filled cell
  // is its first ("Bo Lee\t\t") does not.
  if (row.length === 1) context.columnHeadings = undefined;
  const columns = context.columnHeadings;
  if (cells.length === 1 && columns?.length === row.length) return columnValues(row, columns, context.role);
  if (cells.length === 1) {
    const role = roleOf(line.text, context.parties);
    if (role) {
      context.role = role;
      // "ACME CORP." heading a block is the party's name spelled another way: a value of its own.
      const party = context.parties.find(
        (p) => p.role === role && p.name.toLowerCase() === line.text.toLowerCase(),
      );
      return party && party.name !== line.text
        ? [{ type: 'party', name: `${role}_name`, named: true, text: line.text, index: line.index }]
        : [];
    }
    const found = labelLine(line, context, context.role);
    // "… as of the Effective Date. Sphere 3D Corp.": a PDF may run a block's heading into the line before.
    const trailing = trailingRole(line.text, context.parties);
    if (trailing) context.role = trailing;
    return found;
  }
  const filled = cells.filter((cell) => cell.text);
  const headings = filled.map((cell) => roleOf(cell.text, context.parties));
  if (filled.length > 0 && headings.every(Boolean)) {
    context.columnRoles = cells.map((cell) => roleOf(cell.text, context.parties));
    return [];
  }
  if (isHeaderRow(cells)) {
    context.columnHeadings = cells.map((cell) => cell.text);
    return [];
  }
  if (columns && columns.length === row.length) return columnValues(row, columns, context.role);
  // "Term\tValue", "Item\tDetails": a table's header row names its columns, it holds no value.
  if (cells.length === 2 && COLUMN_HEADINGS.has(cells[1]!.text.toLowerCase())) return [];
  // "Jane Roe, Chief Executive Officer\tJohn Doe, Partner": names and offices side by side, no label.
  if (isLabelRow(line)) {
    return labelled(cells[0]!.text, cells[1]!, context.role, false, true);
  }
  const found: Candidate[] = [];
  // "Name:\tJane Doe\tName:\tJohn Roe": two blocks side by side (the colons tell labels from a header row).
  const pairs =
    cells.length % 2 === 0 &&
    cells.every((cell, i) => i % 2 === 1 || (cell.text.endsWith(':') && isLabel(cell.text)));
  if (pairs) {
    for (let i = 0; i < cells.length; i += 2) {
      const role = context.columnRoles[i / 2] ?? context.columnRoles[i] ?? context.role;
      found.push(...labelled(cells[i]!.text, cells[i + 1]!, role));
    }
    return found;
  }
  cells.forEach((cell, i) => {
    if (cell.text) found.push(...labelLine(cell, context, context.columnRoles[i] ?? context.role));
  });
  return found;
}
