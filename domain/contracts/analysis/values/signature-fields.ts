/**
 * The fields of a signature block (`By: /s/ Jane Doe`, `Name: Jane Doe`, `Title: CEO`,
 * `Date: March 3, 2026`), read from a line, each value up to the next field's label.
 */
import type { Candidate } from './candidate.ts';
import { type Span, subSpan } from './lines.ts';
import { nameAt } from './names.ts';
import type { Party } from './parties.ts';
import { typedValues } from './typed.ts';

/** Labels of a signature block, and what they name. */
export const SIGNATURE_LABELS: Record<string, string> = {
  by: 'signatory_name',
  name: 'signatory_name',
  'print name': 'signatory_name',
  'printed name': 'signatory_name',
  signature: 'signatory_name',
  title: 'signatory_title',
  its: 'signatory_title',
  position: 'signatory_title',
  date: 'signature_date',
};
/**
 * A signature block's label anywhere in a line: blocks printed side by side, or a signature page
 * that reached the text as one paragraph ("By: /s/ Jane Doe By: /s/ John Roe Name: …").
 */
export const SIGNATURE_LABEL =
  /(?:^|\s)(By|Name|Title|Its|Date|Position|Print Name|Printed Name|Signature)\s?:/gi;
/** Words a title is made of besides capitalised ones: "President and CEO", "Head of Content". */
const TITLE_JOINERS = new Set(['and', 'of', '&', 'the', 'for', '/']);
/** A conformed signature: "/s/ Jane Doe" as a filed copy prints it. */
export const CONFORMED_SIGNATURE = /^\/s\/\s*/i;
const CAPACITY =
  /\b(?:Agent|Officer|Signatory|Representative|Authori[sz]ed|Signature|Director|Manager|President|Secretary|Treasurer)\b/;

/** "/s/ Jane Doe": a conformed signature, anywhere in a line, names the person signing. */
function conformedSignatures(span: Span, role: string | null): Candidate[] {
  const found: Candidate[] = [];
  for (let at = span.text.indexOf('/s/'); at >= 0; at = span.text.indexOf('/s/', at + 3)) {
    // A name is a few words: reading 200 characters keeps a line of many "/s/" linear.
    const text = signatoryName(span.text.slice(at, at + 200));
    const offset = text ? span.text.indexOf(text, at) : -1;
    if (offset < 0) continue;
    const name = role ? `${role}_signatory_name` : 'signatory_name';
    found.push({ type: 'value', name, named: true, text, index: span.index + offset });
  }
  return found;
}

/** The signature fields of a line, each value up to the next label. */
export function signatureFields(span: Span, parties: readonly Party[], role: string | null): Candidate[] {
  const marks = [...span.text.matchAll(SIGNATURE_LABEL)];
  const found: Candidate[] = conformedSignatures(span, role);
  marks.forEach((mark, i) => {
    const label = mark[1]!.toLowerCase();
    const value = subSpan(span, mark.index + mark[0].length, marks[i + 1]?.index ?? span.text.length);
    const field = SIGNATURE_LABELS[label]!;
    const text =
      field === 'signatory_name'
        ? signatoryName(value.text)
        : field === 'signatory_title'
          ? titleAt(value.text, parties)
          : dateAt(value.text);
    // "Name: Redfern Analytics, Inc.": a party's block asks for the organisation's name as a
    // signature block asks for the signer's; the whole value is a company's name.
    const organization = field === 'signatory_name' && !text ? wholeOrganization(value) : null;
    if (organization) {
      found.push({
        type: 'party',
        name: role ? `${role}_name` : 'organization_name',
        named: true,
        ...organization,
      });
      return;
    }
    if (!text) return;
    const offset = value.text.indexOf(text);
    found.push({
      type: 'value',
      name: role ? `${role}_${field}` : field,
      named: true,
      text,
      index: value.index + offset,
    });
  });
  return found;
}

/** The value when it is wholly a company's name by its legal form ("Redfern Analytics, Inc."), or null. */
function wholeOrganization(value: Span): { text: string; index: number } | null {
  const text = value.text.trim();
  const name = nameAt(text);
  if (!name?.entity || name.start !== 0 || name.text !== text.replace(/[,;]$/, '')) return null;
  return { text: name.text, index: value.index + value.text.indexOf(name.text) };
}

/** The date a signature's "Date:" gives ("March 3, 2026"), or ''. */
function dateAt(value: string): string {
  const date = typedValues({ text: value, index: 0 }).find((c) => c.type === 'date' && c.index === 0);
  return date?.text ?? '';
}

/** Words that start the next field or block, never a person's name. */
const FIELD_WORDS = new Set([
  'by',
  'name',
  'title',
  'date',
  'its',
  'company',
  'position',
  'printed',
  'signature',
  'attest',
  'witness',
]);

/**
 * A capacity or a caption printed where a signer's name is typed ("Authorised Signatory", "Print
 * Name", "Witness Name"): a template's signature block, no person's name.
 */
export function isCapacityOrCaption(name: string): boolean {
  return CAPACITY.test(name) || name.split(' ').some((w) => FIELD_WORDS.has(w.toLowerCase()));
}

/**
 * "/s/ Thomas A. Gallo", "Timothy Orr- President": the person's name (two to five words), up to
 * the next field's label; of two names run together ("Justin Anderson Cameron Gundry") the first.
 */
export function signatoryName(value: string): string {
  const conformed = CONFORMED_SIGNATURE.exec(value);
  const rest = conformed ? value.slice(conformed[0].length) : value;
  const words = rest.split(' ');
  let count = 0;
  // The next field ends the name, with or without its colon ("Jane Doe By: /s/ John Roe").
  while (count < words.length && count < 6 && !FIELD_WORDS.has(words[count]!.toLowerCase().replace(/:$/, '')))
    count += 1;
  const name = nameAt(words.slice(0, count).join(' '));
  if (!name || name.entity || name.words < 2 || name.words > 5) return '';
  // "/s/ Authorized Agent": a capacity, not a person.
  if (CAPACITY.test(name.text)) return '';
  if (conformed && name.start > 0) return '';
  const nameWords = name.text.split(' ');
  // Initials and particles ("A.", "van") make a name longer; four plain words are two names, and
  // an initial after the second word starts the next name ("Tomás Reyes Maria L. Okafor").
  const initial = (w: string | undefined) => w !== undefined && /^[A-Z]\.$/.test(w);
  const next = nameWords.findIndex((_, i) => i >= 2 && initial(nameWords[i + 1]));
  const text =
    next >= 2
      ? nameWords.slice(0, next).join(' ')
      : nameWords.length >= 4 && !nameWords.some((w) => initial(w) || /^[a-z]/.test(w))
        ? nameWords.slice(0, 2).join(' ')
        : name.text;
  return text.replace(/[-–,]$/, '');
}

/**
 * "President and CEO", "Head of Content": capitalised words (and joiners), up to the name of the
 * next party ("President TLP MANAGEMENT SERVICES, LLC"), a page number or a lower-case word.
 */
function titleAt(value: string, parties: readonly Party[]): string {
  // A title is a few words: 200 characters keep a long line linear.
  const words = value.slice(0, 200).split(' ');
  let count = 0;
  for (; count < Math.min(words.length, 8); count += 1) {
    const word = words[count]!;
    if (TITLE_JOINERS.has(word.toLowerCase()) && count > 0) continue;
    if (!/^[A-Z]/.test(word)) break;
    const rest = words.slice(count).join(' ');
    const party = nameAt(rest);
    if (count > 0 && party?.entity) break;
    if (count > 0 && parties.some((p) => rest.toLowerCase().startsWith(p.name.toLowerCase()))) break;
  }
  while (count > 0 && TITLE_JOINERS.has(words[count - 1]!.toLowerCase())) count -= 1;
  return words.slice(0, count).join(' ').replace(/[,;]$/, '');
}

const ONE_WORD_TITLE =
  /^(?:[A-Z]{2,5}|President|Secretary|Treasurer|Director|Manager|Partner|Member|Chairman|Chair|Owner|Principal)$/;
/** A rule a form prints for a signature, a name or a date to be written on ("______"). */
const RULE = /_{3,}/g;
/** A caption a form prints under a rule, and the field it names ("Name (Please print)", "Title/Position"). */
const CAPTION =
  /^(?:(Signature|Name|Print(?:ed)? Name|Title|Position|Date)(?:\s?\/\s?(?:Position|Title|Date))?(?: \(please print\))?)$/i;

/**
 * Printed forms put a field's caption under the rule it is written on ("Jane Roe" / "______" /
 * "Name"), and side by side for each party's column; a text reads the filled rule, the rules and
 * their captions on one line ("CIO COO ____ ____ Title/Position Title/Position") or on the next
 * lines. What stands before the rules is the captioned field's value: a person's name or a title,
 * one a column (a title of one word per column, "CIO COO"; otherwise the first column's). Dates
 * are read by their form (typedValues). `rows` is the line and the two after it; each is read
 * up to 300 characters, so a line of many rules stays linear.
 */
export function captionedFields(rows: readonly (Span | undefined)[], role: string | null): Candidate[] {
  const [line, next, after] = rows;
  if (!line) return [];
  const own = ruleRow(line);
  const value = own ? subSpan(line, 0, own.start) : !line.text.includes('___') ? line : undefined;
  let row = own;
  if (!row && next) {
    // The rules and their captions on the next line, or the rules alone and the captions after them.
    const ruled = ruleRow(next);
    if (ruled?.start === 0) row = ruled;
    else if (after && /^[_\s]+$/.test(next.text.slice(0, 300)))
      row = ruleRow({ text: `${next.text.slice(0, 300)} ${after.text}`, index: 0 });
  }
  if (!row || !value || value.text.length === 0 || value.text.length > 120) return [];
  // Forms stack their rules, each captioned under it ("______" / "Name" / "______" / "Title"): the
  // caption of the rule above is no value of the next.
  if (isCaptionLine(value.text)) return [];
  // A signature's rule holds the typed name too ("/s/ Jane Roe"); a date is read by its form.
  const field = /^(?:title|position)/i.test(row.caption)
    ? 'signatory_title'
    : /^date/i.test(row.caption)
      ? null
      : 'signatory_name';
  if (!field) return [];
  const name = role ? `${role}_${field}` : field;
  const found: Candidate[] = [];
  const add = (text: string, from: number) => {
    const offset = value.text.indexOf(text, from);
    if (text && offset >= 0)
      found.push({ type: 'value', name, named: true, text, index: value.index + offset });
    return offset + text.length;
  };
  if (field === 'signatory_name') {
    // Two names run together, one a column ("Heim Brecht Stefan Meyes-Sickenagel").
    let from = 0;
    for (let column = 0; column < row.columns && from < value.text.length; column += 1) {
      const text = signatoryName(value.text.slice(from).trim());
      if (!text) break;
      from = add(text, from);
    }
    return found;
  }
  // "CIO COO": a title of one word in each column, an officer's abbreviation or a one-word
  // office; "VP Sales" is one title.
  const words = value.text.split(/\s+/);
  if (row.columns > 1 && words.length === row.columns && words.every((w) => ONE_WORD_TITLE.test(w))) {
    let from = 0;
    for (const word of words) from = add(titleAt(word, []), from);
    return found;
  }
  add(titleAt(value.text, []), 0);
  return found;
}

/**
 * A line of rules and the captions printed after them ("____ ____ Title/Position
 * Title/Position"): where the rules start, how many columns, and the caption (the same for each
 * column), or null.
 */
function ruleRow(line: Span): { start: number; columns: number; caption: string } | null {
  const text = line.text.slice(0, 300);
  const rules = [...text.matchAll(RULE)];
  if (rules.length === 0) return null;
  const last = rules.at(-1)!;
  const captions = text.slice(last.index + last[0].length).trim();
  const columns = rules.length;
  const caption = repeatedCaption(captions, columns);
  if (!caption) return null;
  // Only rules between the value and the captions.
  if (text.slice(rules[0]!.index, last.index).replace(/[_\s]/g, '')) return null;
  return { start: rules[0]!.index, columns, caption };
}

/**
 * The caption printed the same under each of `columns` rules ("Date Date", "Name (Please print)
 * Name (Please print)"), or ''.
 */
function repeatedCaption(captions: string, columns: number): string {
  const length = (captions.length - (columns - 1)) / columns;
  const caption = Number.isInteger(length) ? captions.slice(0, length) : '';
  return caption && Array(columns).fill(caption).join(' ') === captions && CAPTION.test(caption)
    ? caption
    : '';
}

/** A line of captions alone, one a column ("Name", "Print Name Print Name"): at most 120 characters are read. */
function isCaptionLine(text: string): boolean {
  const words = text.length <= 120 ? text.split(' ').length : 0;
  for (let columns = 1; columns <= words; columns += 1) if (repeatedCaption(text, columns)) return true;
  return false;
}
