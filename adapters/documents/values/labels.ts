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

/** What the lines before tell about the one being read. */
export interface LabelContext {
  parties: readonly Party[];
  /** The role of the party whose signature block is being read, from its heading. */
  role: string | null;
  /** Roles by column, from a table row of party headings (signature blocks side by side). */
  columnRoles: (string | null)[];
}

const LABEL = /^[A-Z][A-Za-z0-9'’()&/ .,#-]{0,48}$/;
/** Labels of a signature block, and what they name. */
const SIGNATURE_LABELS: Record<string, string> = {
  by: 'signatory_name',
  name: 'signatory_name',
  'print name': 'signatory_name',
  'printed name': 'signatory_name',
  signature: 'signatory_name',
  title: 'signatory_title',
  its: 'signatory_title',
  date: 'signature_date',
};
/** A further label on the same line: "Name: Jane Doe Title: CEO". */
const INLINE_LABEL = /\s(?:Name|Title|Date|By|Its|E-?mail|Phone|Address):\s/g;
/** A blank to fill or a signature line, not a value. */
const BLANK = /^[\s_.\-–—/:]*$|^\[\s*\]$|^N\/?A$/i;
const CONFORMED_SIGNATURE = /^\/s\/\s*/i;

function isLabel(text: string): boolean {
  const label = text.replace(/:$/, '').trim();
  if (!LABEL.test(label) || label.endsWith('.') || label.endsWith(',')) return false;
  const words = label.split(' ').length;
  return words <= 6;
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

/** The value of one label: the whole text when it is short and not a sentence. */
function labelled(label: string, value: Span, role: string | null): Candidate[] {
  let text = value.text;
  let index = value.index;
  const conformed = CONFORMED_SIGNATURE.exec(text);
  if (conformed) {
    text = text.slice(conformed[0].length);
    index += conformed[0].length;
  }
  text = text.replace(/[,;:]$/, '');
  // A sentence's full stop is not the value's; an abbreviation's ("Acme Inc.", "U.S.A.") is.
  const lastWord = text.slice(text.lastIndexOf(' ') + 1);
  if (text.endsWith('.') && !isEntitySuffix(lastWord) && !/^(?:[A-Z]\.)+$/.test(lastWord))
    text = text.slice(0, -1);
  if (!text || BLANK.test(text) || text.length > 150 || text.split(' ').length > 20) return [];
  // A sentence is the contract's wording, not a filled-in value.
  if (/[a-z]\. [A-Z]/.test(text) || /^(?:the|this|each|all|any|if|in|as)\s/i.test(text)) return [];
  return [{ type: 'value', name: labelName(label, role, text), named: true, text, index }];
}

/** "Label: value", with more signature labels on the same line split apart. */
function labelLine(span: Span, context: LabelContext, role: string | null): Candidate[] {
  const colon = span.text.indexOf(':');
  if (colon <= 0 || colon > 50 || !isLabel(span.text.slice(0, colon))) return [];
  const label = span.text.slice(0, colon);
  const ownRole = roleOf(label, context.parties);
  if (ownRole) {
    // "PROVIDER: TechCo Inc.": the heading of a signature block, with the party's name.
    context.role = ownRole;
    return labelled('name', subSpan(span, colon + 1), null).map((c) => ({ ...c, name: `${ownRole}_name` }));
  }
  const found: Candidate[] = [];
  let currentLabel = label;
  let valueStart = colon + 1;
  for (const m of span.text.slice(colon).matchAll(INLINE_LABEL)) {
    const at = colon + m.index;
    found.push(...labelled(currentLabel, subSpan(span, valueStart, at), role));
    currentLabel = m[0].trim();
    valueStart = at + m[0].length;
  }
  found.push(...labelled(currentLabel, subSpan(span, valueStart), role));
  return found;
}

export function labelledValues(line: Span, context: LabelContext): Candidate[] {
  const cells = cellsOf(line);
  // A clause ends the signature block (or notice block) whose heading named the role.
  if (cells.length === 1 && line.text.split(' ').length > 12) context.role = null;
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
    return labelLine(line, context, context.role);
  }
  const filled = cells.filter((cell) => cell.text);
  const headings = filled.map((cell) => roleOf(cell.text, context.parties));
  if (filled.length > 0 && headings.every(Boolean)) {
    context.columnRoles = cells.map((cell) => roleOf(cell.text, context.parties));
    return [];
  }
  if (cells.length === 2 && isLabel(cells[0]!.text)) {
    return labelled(cells[0]!.text, cells[1]!, context.role);
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
