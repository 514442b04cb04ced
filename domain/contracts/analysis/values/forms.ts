/**
 * Values as filled-in forms lay them out beyond `Label: value` lines (labels.ts):
 * - an entry on the lines under a label that stands alone (`Principal Office or Primary Address:`
 *   / `30 St Mary Axe, London EC3A 8BF, United Kingdom`): a form prints a label on a line of its
 *   own and leaves the lines below it for the entry;
 * - the people a list under a heading names, one a line or in one line (`Lucas Moreau, Yuki
 *   Tanaka and Thomas J. Whitaker III` under `Schedule A`);
 * - a contract's or an order's number after the noun it numbers (`Task Order Number
 *   47QFCA25F7156`, `Purchase Order No. PO-2291`), and a party's registration number after its
 *   label (`charity number 1054551`, `Tax ID: 81-0896291`);
 * - a cover page's table of names side by side, an institution's seat (`established at Nijmegen,
 *   Netherlands`, `établi à Liège, Belgique`) (docs/decisions/085-values-as-forms-lay-them-out.md).
 * A signer over a "Signature" caption, an English `Signed by …` and a definition by "means" are
 * read where the other signatories and parties are (signatories.ts, definitions.ts).
 * Every step reads each line once, with patterns of bounded repetition: linear in the text.
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import { cellsOf, type Span } from './lines.ts';
import { nameAt } from './names.ts';
import { isHeaderRow, isLabelRow, wholeName } from './table-rows.ts';
import { typedValues } from './typed.ts';

/** How many lines under a label an entry may take (an address's lines, a list of people). */
const MAX_ENTRY_LINES = 6;
/** A label alone on its line: a few words (a parenthesis allowed), then a colon, nothing after. */
const LABEL_ALONE = /^([\p{Lu}][\p{L}\p{N}'’&/ -]{0,60}?)( ?\([^()\n]{1,60}\))?:$/u;
/**
 * The room a form gives a free-text entry, in its label: `Silver tier (120 chars)`,
 * `Description (max. 500 characters)`, `(50 words)`. Whatever stands under such a label was
 * written in, sentence or not.
 */
const LENGTH_HINT = /(?:^|\D)\d{1,5} ?(?:chars?|characters|words)\b/i;
/** A word of a label that makes it a sentence's ("Sponsor may provide:"): its verb, no label's. */
const VERBS = new Set(
  'may must shall will can should is are be provide provides include includes agree agrees'.split(' '),
);
/** A line that starts a label, a checkbox or a blank of its own: no entry of the label above. */
export const NOT_AN_ENTRY = /^(?:[^:\n]{1,60}:(?:\s|$)|\[[ xX✓]?\]|[⎣⌊_＿])/;

/** A person's name: two to five capitalised words, initials and a generational suffix inside. */
const NAME_WORD = /^(?:\p{Lu}[\p{Ll}'’-]+(?:-\p{Lu}[\p{Ll}'’]+)?|\p{Lu}\.|Jr\.|Sr\.|II|III|IV)$/u;
function isPersonName(text: string): boolean {
  const words = text.split(' ');
  if (words.length < 2 || words.length > 5) return false;
  if (!words.every((w) => NAME_WORD.test(w))) return false;
  // A name starts and ends with a name, not an initial ("Thomas J. Whitaker III" ends with a suffix).
  return !/\.$/.test(words[0]!) && !/^\p{Lu}\.$/u.test(words.at(-1)!);
}

/** "Lucas Moreau, Yuki Tanaka and Thomas J. Whitaker III": each name, or none when one part is no name. */
function peopleIn(line: Span): Candidate[] {
  const found: Candidate[] = [];
  const separator = /, and |, | and /g;
  let start = 0;
  for (;;) {
    const m = separator.exec(line.text);
    const end = m ? m.index : line.text.length;
    const text = line.text.slice(start, end);
    if (!isPersonName(text)) return [];
    found.push({ type: 'value', name: 'person', named: false, text, index: line.index + start });
    if (!m) return found;
    start = m.index + m[0].length;
  }
}

/**
 * A heading a list of people stands under: a label alone, or a schedule's, an exhibit's or an
 * annex's caption (`Schedule A`): a form lists the people it designates under one.
 */
const LIST_HEADING = /^(?:(?:Schedule|Exhibit|Annex|Appendix|Attachment)\s+[A-Z0-9]{1,3}\.?:?|.{1,60}:)$/;

/** The street line of a postal address: a building number, then the street's name. */
const STREET_LINE = /^\d{1,6}[A-Za-z]?,? \p{Lu}/u;
/**
 * A continental address on one line: the street, its number, then the postcode before the town
 * ("Friedrichstraße 68, 10117 Berlin, Germany", "Herengracht 182, 1016 BR Amsterdam").
 */
const STREET_NUMBER_POSTCODE =
  /^\p{Lu}[\p{L}.'’-]+(?: [\p{L}.'’-]+){0,3} \d{1,5}[a-z]?, \d{4,5}(?: [A-Z]{2})? \p{Lu}/u;
/** The town line after it: "WINDERMERE, FL 34786", "Seattle, WA 98109-1234", "London EC3A 8BF". */
const TOWN_LINE = /^[\p{Lu}][\p{L} .'-]{1,40}, ?\p{Lu}{2} \d{5}(?:-\d{4})?$/u;

/** The entry under a label alone on its line, or none: the lines it takes, and their values. */
function entryUnder(
  text: string,
  lines: readonly Span[],
  at: number,
  label: string,
  hinted: boolean,
): Candidate[] {
  const name = toSnakeCase(label);
  const found: Candidate[] = [];
  for (let i = at; i < lines.length && i < at + MAX_ENTRY_LINES; i += 1) {
    const line = lines[i]!;
    if (NOT_AN_ENTRY.test(line.text) || line.text.includes('\t') || line.text.length > 500) break;
    if (hinted) {
      found.push({ type: 'value', name, named: true, text: line.text, index: line.index });
      continue;
    }
    if (isPersonName(line.text)) {
      found.push({ type: 'value', name, named: true, text: line.text, index: line.index });
      continue;
    }
    // A postal address on its own line is the whole line ("…, London EC3A 8BF, United
    // Kingdom"), and its town line under its street line belongs to it.
    const typed = typedValues(line);
    const address =
      STREET_NUMBER_POSTCODE.test(line.text) ||
      typed.some((c) => c.type === 'address' && c.index === line.index);
    if (found.length === 0 && (address || STREET_LINE.test(line.text)) && line.text.length <= 120) {
      const next = lines[i + 1];
      const town = next && next.index === line.index + line.text.length + 1 && TOWN_LINE.test(next.text);
      const end = town ? next.index + next.text.length : line.index + line.text.length;
      if (address || town) {
        found.push({
          type: 'address',
          name,
          named: true,
          text: text.slice(line.index, end),
          index: line.index,
        });
        break;
      }
    }
    break;
  }
  return found;
}

/** The values a form's layout gives beyond its `Label: value` lines. */
export function formValues(text: string, lines: readonly Span[]): Candidate[] {
  const found: Candidate[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const label = LABEL_ALONE.exec(line.text);
    if (
      label &&
      !label[1]!.split(' ').some((w) => VERBS.has(w.toLowerCase())) &&
      label[1]!.split(' ').length <= 8
    ) {
      const hinted = LENGTH_HINT.test(label[2] ?? '');
      for (const c of entryUnder(text, lines, i + 1, label[1]!.trim(), hinted))
        found.push({ ...c, slot: true });
    }
    if (i > 0 && LIST_HEADING.test(lines[i - 1]!.text) && line.text.includes(' and ')) {
      const heading = lines[i - 1]!.text.replace(/:$/, '');
      const people = peopleIn(line);
      if (people.length >= 2)
        for (const p of people) found.push({ ...p, name: toSnakeCase(heading), named: true, slot: true });
    }
    found.push(...numbers(line), ...placeParts(line));
    if (i < TITLE_BLOCK_LINES && AND_LINE.test(line.text)) found.push(...titleBlockParty(lines[i + 1]));
    if (i < TITLE_BLOCK_LINES) found.push(...coverCells(line));
  }
  return found;
}

/**
 * A cover page's table of names: a row within the first lines whose every cell is a name ("Permit
 * Intake Portal (PIP)\t\tIdentity Verification Gateway (IVG)", then "U.S. Small Business
 * Administration\t\tbytecraft.io, inc."). A cover page sets out side by side what the agreement
 * joins, one column each (an interconnection agreement's cover names the two systems and their
 * owners, NIST SP 800-47), as a deed's names its parties: each cell is a value of the deal.
 */
function coverCells(line: Span): Candidate[] {
  if (!line.text.includes('\t')) return [];
  const filled = cellsOf(line).filter((cell) => cell.text);
  if (filled.length < 2 || isHeaderRow(filled)) return [];
  const names = filled.map((cell) => wholeName(cell.text));
  if (names.some((name) => name === null)) return [];
  // "Governing Law\tNew York", "Sponsor Name\tAcme Corp.": a key-terms row of a label and its value.
  if (isLabelRow(line)) return [];
  return filled.map((cell, i) => ({
    type: names[i]!.entity ? 'party' : 'value',
    name: names[i]!.entity ? 'party' : 'name',
    named: false,
    text: cell.text,
    index: cell.index,
    slot: true,
  }));
}

/** A cover page's parties stand within its first lines. */
const TITLE_BLOCK_LINES = 12;
const AND_LINE = /^(?:and|AND|And)$/;

/**
 * A cover page that names its parties one a line with "and" between them ("The General Services
 * Administration (GSA)" / "and" / "National Park Service"): the line after "and" is a party's
 * name when the whole line is one, of two words or more (the line before may be an office's
 * code, "OCSIT/18F", so it is not taken).
 */
function titleBlockParty(line: Span | undefined): Candidate[] {
  if (!line) return [];
  const name = nameAt(line.text);
  if (!name || name.text !== line.text || name.words < 2) return [];
  return [{ type: 'party', name: 'party', named: false, text: line.text, index: line.index, slot: true }];
}

/** The value a match of `line` ends with, named by what the match says it is, at its slot. */
function endingMatch(
  line: Span,
  m: RegExpMatchArray,
  text: string,
  type: Candidate['type'],
  name: string,
): Candidate {
  return {
    type,
    name,
    named: true,
    text,
    index: line.index + m.index! + m[0].length - text.length,
    slot: true,
  };
}

/**
 * The number of a contract, an order or an account, after the noun it numbers: "Task Order Number
 * 47QFCA25F7156", "Contract No. GS-35F-0119Y", "Purchase Order # 4500012345". Contracts and orders
 * are identified by their number (a federal contract's or order's PIID, FAR 4.1601; a buyer's
 * purchase order number): a value of each copy. The number holds a digit, and no sentence word.
 * Payment instructions give the account's number and the bank's routing number (ABA) side by
 * side, in a sentence's line or under it ("… lists directly below: Account Number: 1,119,834
 * Routing Number: 2,098,176"); a number may be written in groups of three with commas.
 * A party's registration number follows its label in running text too, in capitals or not
 * ("charity number 1054551", "company number 02958002", "Registration No. 2016/123456/07",
 * "EIN 12-3456789", "Tax ID: 81-0896291"): a company, a charity or a taxpayer is identified by the
 * number its register gave it (UK Companies Act 2006 s. 1066, Charities Act 2011 s. 30; a US
 * employer identification number), and each party's is its own.
 */
const NUMBERED =
  /\b(?:((?:Task |Delivery |Purchase |Work )?Order|Contract|Agreement|Purchase Order|PO|Account|Routing|Invoice|Reference|Policy|Grant|Award|Project|Ticket|Case|[Cc]ompany|[Cc]harity|[Rr]egistration|[Rr]egistered|VAT)(?: Number| No\.?| #|#| number| no\.?)|(Tax ID|EIN)|(KvK(?:-nummer)?|Ondernemingsnummer|RSIN|BTW-nummer|SIRE[NT]|RCS [A-Z][a-z]+|HR[AB]|USt-IdNr\.|Steuernummer|UID|CIF|NIF|Partita IVA|P\. ?IVA|Codice Fiscale|ABN|ACN))[ :]*(\d{1,3}(?:,\d{3}){1,6}(?![\d,])|\d{2,4}(?: \d{2,4}){1,4}(?!\d)|[A-Z0-9][A-Z0-9./-]{2,30}[A-Z0-9])\b/g;
/**
 * The registers of other countries, by the name each prints before its number: the Dutch
 * Chamber of Commerce's "KvK-nummer" and the RSIN, Belgium's "Ondernemingsnummer", France's SIREN,
 * SIRET and "RCS Paris", Germany's "HRB" and "USt-IdNr.", Austria's and Switzerland's UID, Spain's
 * CIF and NIF, Italy's "Partita IVA" and "Codice Fiscale", Australia's ABN and ACN.
 */
function numbers(line: Span): Candidate[] {
  const found: Candidate[] = [];
  for (const m of line.text.matchAll(NUMBERED)) {
    const value = m[4]!;
    // "Executive Order No. 13526": a statute's citation, the same in every contract. "00000000",
    // "000-000-000": a form's sample of the number's shape, no number yet.
    if (!/[1-9]/.test(value) || /Executive $/.test(line.text.slice(Math.max(0, m.index - 10), m.index)))
      continue;
    const name = m[3] ? 'registration_number' : `${toSnakeCase(m[1] ?? m[2]!)}_number`;
    found.push(endingMatch(line, m, value, 'value', name));
  }
  return found;
}

/**
 * An address written out in words, part by part: "is 8 The Green, Suite A, in the city of
 * Wilmington, county of New Castle, Zip Code 19901". Filings and deeds name a registered office
 * or a property's place this way (a certificate of incorporation's registered office, DGCL
 * § 102(a)(2)): each part is a value. The town and the county are one to three capitalised words
 * after the lower-case "city of", "town of" or "county of" (not "the City of New York", a
 * public body's name); the ZIP code is five digits after its label.
 */
const PLACE_PART =
  /(?:\bin the |, )(city|town|county) of ((?:\p{Lu}[\p{L}'’-]+)(?: \p{Lu}[\p{L}'’-]+){0,2})(?=[,;]| [a-z(]|\.(?:\s|$)|$)|\b(?:Zip|ZIP|Postal) Code:? (\d{5}(?:-\d{4})?)\b/gu;
function placeParts(line: Span): Candidate[] {
  const found: Candidate[] = [...seats(line)];
  for (const m of line.text.matchAll(PLACE_PART)) {
    found.push(endingMatch(line, m, m[2] ?? m[3]!, 'value', m[1] ?? 'zip_code'));
  }
  return found;
}

/**
 * Where an organization is established, after the words that give its seat: "established at
 * Nijmegen, Netherlands", "based in Leeds, United Kingdom", "établi à Liège, Belgique", "mit Sitz
 * in Köln, Deutschland". Forms that name an institution give its seat as a town and its country
 * (the GDPR's "main establishment", Art. 4(16); French "siège", German "Sitz"): the place is the
 * party's, a value of each copy. A town and a country of up to three capitalised words each.
 */
const SEAT =
  /(?<![\p{L}\p{N}])(?:(?:established|located|based|domiciled|headquartered|seated) (?:at|in)|with (?:its )?(?:seat|registered office|principal office) (?:at|in)|(?:établie?|située?|domiciliée?|installée?) (?:à|en)|ayant son siège (?:à|en)|mit Sitz in|ansässig in) (\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+){0,2}, \p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+){0,2})(?=\s?[(,.;]|\s\p{Ll}|$)/gu;
function seats(line: Span): Candidate[] {
  return [...line.text.matchAll(SEAT)].map((m) => endingMatch(line, m, m[1]!, 'address', 'place'));
}
