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
