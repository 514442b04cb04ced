/**
 * The people signing and their offices where a signature page writes them without labels:
 * "John S. D'Orazio, President and CEO", "Oded Gilboa, CFO", "Anthony K. Chan Chief Executive
 * Officer". Read only on a signature page (after "IN WITNESS WHEREOF" or a conformed signature),
 * where a name and an office side by side are the signatory's.
 */
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';
import { isCapitalised, isEntitySuffix, nameAt } from './names.ts';
import { isCapacityOrCaption } from './signature-fields.ts';

/** Words an office is made of ("Chief Financial Officer", "Dir. of Commercialization"), lower case. */
const OFFICE_WORDS = new Set(
  (
    'chief executive financial operating technology information marketing legal officer president vice ' +
    'ceo cfo coo cio cto cmo cso clo evp svp vp avp director dir. manager managing secretary treasurer ' +
    'chairman chairwoman chairperson chair partner member counsel founder co-founder owner principal clerk ' +
    'head controller comptroller assistant senior executive general attorney trustee proprietor ' +
    'administrator superintendent mayor commissioner'
  ).split(' '),
);
/** Words that start an office on their own, so that a name before them needs no comma. */
const LEADING_OFFICES = new Set([
  'chief',
  'president',
  'ceo',
  'cfo',
  'coo',
  'cio',
  'cto',
  'managing',
  'vice',
]);
const JOINERS = new Set(['and', 'of', '&', 'to', 'for', '/']);

/** A token without its trailing punctuation, in lower case; a full stop stays on an abbreviation ("dir."). */
const word = (token: string) => {
  const bare = token.replace(/[,;]$/, '').toLowerCase();
  return bare.endsWith('.') && !OFFICE_WORDS.has(bare) ? bare.slice(0, -1) : bare;
};
const isOfficeWord = (token: string) =>
  word(token)
    .split('/')
    .every((part) => OFFICE_WORDS.has(part) || OFFICE_WORDS.has(`${part}.`));
/** Words that start a reference or name a body, never a person: "Exhibit A", "Phase One", "Steering Committee". */
const NOT_PERSON = new Set([
  'exhibit',
  'schedule',
  'section',
  'article',
  'annex',
  'appendix',
  'phase',
  'committee',
  'board',
  'project',
  'client',
  'relationship',
  'contacts',
  'level',
]);
/** A word of a person's name: "Anthony", "K.", "D'Orazio", "Tomás", "van"; a full stop only after an initial. */
const isNameWord = (token: string) =>
  (/^\p{Lu}(?:[\p{L}'’-]*\p{L})?$/u.test(token) || /^\p{Lu}\.$/u.test(token)) &&
  !isOfficeWord(token) &&
  !isEntitySuffix(token) &&
  !NOT_PERSON.has(token.toLowerCase());

/** The office that starts at `tokens[from]`, as a count of tokens (0: none). */
function officeLength(tokens: string[], from: number): number {
  let end = from;
  let lastOffice = -1;
  for (let i = from; i < tokens.length && i - from < 7; i += 1) {
    const token = tokens[i]!;
    const bare = word(token);
    if (isOfficeWord(token)) lastOffice = i;
    else if (JOINERS.has(bare) && i > from) {
      // "Dir. of Commercialization": a capitalised word after "of" is the office's.
    } else if (isCapitalised(token) && i > from && JOINERS.has(word(tokens[i - 1]!)) && lastOffice >= 0)
      lastOffice = i;
    else if (isCapitalised(token) && i - from < 2 && /^[A-Z][a-z]+$/.test(token)) {
      // "Town Manager", "Account Director": a word that qualifies the office after it.
    } else break;
    end = i + 1;
    // "EVP, General Counsel": a comma goes on only to another office word.
    if (token.endsWith(',') && !(tokens[i + 1] && isOfficeWord(tokens[i + 1]!))) break;
  }
  return lastOffice >= 0 && end > from ? lastOffice - from + 1 : 0;
}

/** The signatories and their offices in one line of a signature page. */
export function titledSignatories(line: Span, role: string | null): Candidate[] {
  const found: Candidate[] = [];
  const tokens: string[] = [];
  const starts: number[] = [];
  for (const m of line.text.matchAll(/\S+/g)) {
    tokens.push(m[0]);
    starts.push(m.index);
  }
  const prefix = role ? `${role}_` : '';
  // A name never reaches back into the office found before it.
  let taken = 0;
  for (let i = 1; i < tokens.length; i += 1) {
    const comma = tokens[i - 1]!.endsWith(',');
    if (!comma && !LEADING_OFFICES.has(word(tokens[i]!))) continue;
    // An office on a signature page is capitalised ("President", "CEO"); "director of …" is prose.
    if (!isCapitalised(tokens[i]!)) continue;
    const length = officeLength(tokens, i);
    if (length === 0) continue;
    // The name before, the last word carrying the comma when there is one: of a longer run of
    // name words ("/s/ Henrik Olsen Henrik Olsen"), the name written twice, or its last two
    // words (three with an initial between them).
    let first = i;
    while (first > taken && i - first < 6) {
      const token = tokens[first - 1]!;
      const bare = first === i && comma ? token.slice(0, -1) : token;
      if (!isNameWord(bare) || (first < i && token.endsWith(','))) break;
      first -= 1;
    }
    const run = tokens.slice(first, i).map((t, k) => (k === i - first - 1 && comma ? t.slice(0, -1) : t));
    if (run.length < 2) continue;
    if (run.length > 3) {
      const twice = [3, 2].find(
        (k) => run.length >= 2 * k && run.slice(-2 * k, -k).join(' ') === run.slice(-k).join(' '),
      );
      first = i - (twice ?? (/^[A-Z]\.$/.test(run.at(-2)!) ? 3 : 2));
    }
    const nameEnd = starts[i - 1]! + tokens[i - 1]!.length - (comma ? 1 : 0);
    const personText = line.text.slice(starts[first]!, nameEnd);
    const officeEnd = starts[i + length - 1]! + word(tokens[i + length - 1]!).length;
    const officeText = line.text.slice(starts[i]!, officeEnd);
    found.push(
      {
        type: 'value',
        name: `${prefix}signatory_name`,
        named: true,
        text: personText,
        index: line.index + starts[first]!,
      },
      {
        type: 'value',
        name: `${prefix}signatory_title`,
        named: true,
        text: officeText,
        index: line.index + starts[i]!,
      },
    );
    i += length - 1;
    taken = i + 1;
  }
  return found;
}

/**
 * "Signed by Yuki Tanaka for and on behalf of OPEN LIFE SCIENCE LIMITED on 22 December 2024",
 * "Signed by Amelia K. Hart on …": the execution clause of an English contract or deed names who
 * signs, and the company they sign for after "for and on behalf of" (the form of the Law Society's
 * precedents and of Companies Act 2006 s. 44 executions: "Signed by [NAME], a director, for and on
 * behalf of [COMPANY]"); the name is a person's, the company a party's. The date is read as any
 * date. A blank left there (`Signed by [NAME] on [DATE]`) is no name.
 */
const EXECUTED_BY = /^(?:Signed|Executed)(?: as a deed)? by /;
const ON_BEHALF = /^,?(?: a director,| director,)? for and on behalf of /;

export function executionClause(line: Span): Candidate[] {
  const lead = EXECUTED_BY.exec(line.text);
  if (!lead) return [];
  let at = lead[0].length;
  const person = nameAt(line.text.slice(at, at + 120));
  if (person?.start !== 0 || person.entity || person.words < 2 || isCapacityOrCaption(person.text)) return [];
  const found: Candidate[] = [
    { type: 'value', name: 'signatory_name', named: true, text: person.text, index: line.index + at },
  ];
  at += person.text.length;
  const behalf = ON_BEHALF.exec(line.text.slice(at, at + 60));
  if (behalf) {
    at += behalf[0].length;
    const company = nameAt(line.text.slice(at, at + 160));
    if (company?.start === 0 && (company.entity || company.words >= 2))
      found.push({
        type: 'party',
        name: 'organization_name',
        named: false,
        text: company.text,
        index: line.index + at,
      });
  }
  return found;
}

/** A signature's caption printed under its line: "Signature", "Signature	Date". */
const SIGNATURE_CAPTION = /^Signature(?:\s+Date)?$/i;

/**
 * The signer typed above a signature's caption: "J.H. Cromarty" / "Signature", "Jonas Bergström,
 * U.S. Small Business Administration" / "Signature	Date". Forms and filings print the signer's
 * name (and the organization they sign for, after a comma) on the line whose rule the caption
 * "Signature" stands under; the name is a person's, the organization a party's.
 */
export function captionedSigner(line: Span, next: Span | undefined): Candidate[] {
  if (!next || !SIGNATURE_CAPTION.test(next.text.trim())) return [];
  const cell = line.text.split('\t')[0]!.trimEnd();
  const tokens = cell.split(/,\s/)[0]!.split(' ');
  if (
    tokens.length < 2 ||
    tokens.length > 5 ||
    !tokens.every((t) => isNameWord(t) || /^(?:\p{Lu}\.){1,3}$/u.test(t)) ||
    isCapacityOrCaption(tokens.join(' '))
  )
    return [];
  const person = tokens.join(' ');
  const found: Candidate[] = [
    { type: 'value', name: 'signatory_name', named: true, text: person, index: line.index },
  ];
  const rest = cell.slice(person.length);
  if (rest.startsWith(', ')) {
    const company = nameAt(rest.slice(2));
    if (
      company?.start === 0 &&
      company.text.length === rest.length - 2 &&
      (company.entity || company.words >= 2)
    )
      found.push({
        type: 'party',
        name: 'organization_name',
        named: false,
        text: company.text,
        index: line.index + person.length + 2,
      });
  }
  return found;
}
