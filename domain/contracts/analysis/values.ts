/**
 * The filled-in values of a contract (parties, dates, money, percentages, durations, addresses,
 * e-mail addresses, phone numbers, governing law and venue, key-terms tables), named from their
 * context, with no network.
 *
 * What counts as a deal value (what a person preparing a template from this contract would
 * replace), following the corpus's rules (test/fixtures/contracts-corpus/README.md):
 * - the parties' names (as each spelling stands), the people signing and their titles, every value of a key-terms or cover-page table and of a `Label: value` line, a form's entries under its headings (`values/headed-entries.ts`);
 * - dates, money amounts, percentages, durations, quantities, e-mail addresses, phone numbers, postal
 *   addresses, governing law and venue wherever they stand. In a template, "within thirty (30)
 *   days of notice" is the publisher's standard wording; in a filled-in contract it is what these
 *   parties agreed, and the corpus counts it (its notice lead times are optional there): a signed
 *   contract's numbers are its terms. Every document is searched for values; where a form still
 *   leaves its parties or its date blank, only the values standing at a slot are kept (`slotsOpen`,
 *   docs/decisions/082-values-and-placeholders-per-span.md), unless its preamble names its parties
 *   written in: a draft is dated when signed (docs/decisions/090-a-draft-is-read-as-a-contract.md);
 * - values the wording only quotes (`the Tenant "Michael"`, `the laws of "New Jersey"`), not
 *   quoted defined terms (`values/quoted.ts`);
 * - not: statute names and years, section numbers, defined terms themselves (`"Acme"`), running
 *   headers and footers (a line that recurs unchanged), numbers that are not amounts, and
 *   nothing that meets a placeholder, a bracket, an illustration, a drafting note or a redaction
 *   (`values/spans.ts`).
 *
 * Libraries, measured on a 60,000-character contract (20 pages): chrono-node reads dates in
 * 55 ms and loads in 60 ms (its English parsers only); compromise takes 600 ms to load in each
 * worker and 3 s to parse (compromise-dates 5.5 s more), so it is not used; on the sentences the
 * rules select, neither it nor @microsoft/recognizers-text finds what the rules miss (decision 083).
 * Only the first
 * `MAX_SCANNED_CHARS` characters are read, line by line: the deal's values stand on the first
 * pages and the signature page, and every step is linear in what it reads.
 */
import type { Finding } from './findings.ts';
import { toSnakeCase } from './placeholders.ts';
import type { Candidate } from './values/candidate.ts';
import { clauseValues } from './values/clauses.ts';
import { definitionsIn, meansDefinition } from './values/definitions.ts';
import { formValues } from './values/forms.ts';
import { headedEntries, promptedEntries } from './values/headed-entries.ts';
import { type LabelContext, labelledValues } from './values/labels.ts';
import { linesOf, rowCells, type Span, subSpan, withNextLine } from './values/lines.ts';
import { isEntitySuffix } from './values/names.ts';
import { organizationsIn, unitsOf } from './values/organizations.ts';
import { findParties } from './values/parties.ts';
import { addressee, signingParty } from './values/party-blocks.ts';
import { definedTerms as quotedDefinitions, quotedValues } from './values/quoted.ts';
import { captionedSigner, executionClause, titledSignatories } from './values/signatories.ts';
import { captionedFields } from './values/signature-fields.ts';
import { isRedacted, meets, noValueStretches, readerAt, type Stretch } from './values/spans.ts';
import { isLabelRow } from './values/table-rows.ts';
import { typedValues } from './values/typed.ts';

/** How much of a document is read for values (about 80 pages). */
export const MAX_SCANNED_CHARS = 250_000;
/** The preamble ends at the recitals or the first numbered section, and at the latest here. */
const MAX_PREAMBLE_LINES = 60;
const PREAMBLE_END =
  /^(?:WHEREAS|W I T N E S S|RECITALS|Recitals|BACKGROUND|Background|NOW,? THEREFORE|(?:ARTICLE|Article|SECTION|Section)\s+(?:1|I)\b|1\.?\s+[A-Z])/;

/** Where the signature page starts: "IN WITNESS WHEREOF", a conformed signature ("/s/ Jane Doe"). */
const SIGNATURE_PAGE = /IN WITNESS (?:WHEREOF|THEREOF)|WHEREFORE, the parties|(?:^|\s)\/s\/\s*\p{Lu}/u;
/** An exhibit or schedule after the signature page: its lines are the contract's text again. */
const AFTER_SIGNATURES =
  /^(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT|Exhibit|Schedule|Annex|Appendix|Attachment)\b/;

/** Signature lines of a signed contract ("By: ______"): blanks, but no party's or date's slot left open. */
const SIGNATURE_BLANK = /^(?:By|Name|Title|Date|Signature|Its|Signed|Initials?|Initialed)\b/i;
/**
 * A placeholder for the agreement's own date, wherever it stands: `[Effective Date]`,
 * `Agreement Date: ____`, `{{letterDate}}` (a bare "date" may be any date: its place tells).
 */
const DATE_NAME =
  /^(?:effective|agreement|execution|commencement|contract|letter|order|signing|issue)_date$|^agreement_date|^date_of_(?:the_)?agreement$/;
/** What gives the agreement its date in the preamble: "dated as of", "made on", "entered into this". */
const DATE_CUE = /\b(?:dated|as of|made|entered into|executed|effective|signed|on|this)\b[^.;]{0,12}$/i;

/**
 * Whether the document still leaves a party's or its date's slot blank: a placeholder in the
 * preamble's sentence (where a contract names its parties and its date), a placeholder for the
 * agreement's date or right before a party's definition anywhere, or a form field of a PDF (it
 * stands at no place of the text). Such a document is a form still to be filled in: the numbers in its clauses are the publisher's standard wording, and only the
 * values standing where a blank of their kind would stand (`Candidate.slot`) are this deal's.
 * Signature lines ("By: ____", "Date: ____") are left blank in signed contracts too.
 */
function slotsOpen(
  text: string,
  lines: readonly Span[],
  placeholders: readonly Finding[],
  preambleEnd: number,
): boolean {
  const prose = new Map<number, boolean>();
  const first = firstSentence(lines, preambleEnd);
  const preambleChars = preambleEnd < lines.length ? lines[preambleEnd]!.index : text.length;
  const inProse = (index: number) => {
    const line = lineAt(lines, index);
    if (!prose.has(line)) prose.set(line, isPartiesSentence(lines[line], line === first));
    return prose.get(line)!;
  };
  return placeholders.some(
    (p) =>
      p.occurrences !== undefined ||
      (!SIGNATURE_BLANK.test(p.text) &&
        ((p.index < preambleChars && inProse(p.index)) ||
          DATE_NAME.test(p.name) ||
          definesParty(text, p.index + p.text.length))),
  );
}

/**
 * A draft, not a blank form: the preamble names this many parties, written in, while another of
 * its slots (the date, a system's name) is still blank. A blank form names none, or only its
 * issuer; once both sides are written the document is this deal's contract being written, and
 * its clauses are read as a filled-in contract's are
 * (docs/decisions/090-a-draft-is-read-as-a-contract.md).
 */
const MIN_WRITTEN_PARTIES = 2;

/** How many distinct parties the preamble names clear of every placeholder, bracket and note. */
function writtenParties(parties: readonly Candidate[], stretches: readonly Stretch[]): number {
  const texts = new Set<string>();
  for (const c of parties)
    if (c.type === 'party' && !meets(stretches, c.index, c.index + c.text.length)) texts.add(c.text);
  return texts.size;
}

/** The number of the line `index` stands in (a binary search: lines are in order). */
function lineAt(lines: readonly Span[], index: number): number {
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lines[mid]!.index <= index) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Whether a line is the sentence that names the parties and the date ("This Agreement is made on
 * … between … and …", "entered into as of …", "by and among …", or the document's first
 * sentence: "{{BUYER}} agrees to pay to {{SELLER}} …"), not a table row: a blank there
 * is a party's or the date's slot. A blank of a cover page's or a key-terms table's row
 * (`Billing Contact\t{billing_contact}`) or of a later clause is one term of its own.
 */
const PARTIES_SENTENCE =
  /\b(?:between|among|entered into|is made|are made|made and entered|dated|executed by|issued to|hiring)\b/i;
function isPartiesSentence(line: Span | undefined, first: boolean): boolean {
  return line !== undefined && !line.text.includes('\t') && (first || PARTIES_SENTENCE.test(line.text));
}

/** The document's first sentence: its first line of eight words or more, or −1. */
function firstSentence(lines: readonly Span[], preambleEnd: number): number {
  for (let n = 0; n < preambleEnd; n += 1) {
    let words = 1;
    const text = lines[n]!.text;
    for (let at = text.indexOf(' '); at >= 0 && words < 8; at = text.indexOf(' ', at + 1)) words += 1;
    if (words >= 8) return n;
  }
  return -1;
}

/**
 * A definition right after a placeholder: `[corporation name] (the "Corporation")`, `{{company}},
 * a {{state}} corporation (the "Company")`: the blank is a party's name, wherever it stands.
 */
const DEFINITION_AFTER = /^[^.;()\n]{0,60}\((?:the |hereinafter |referred to as )*["“]/;
function definesParty(text: string, end: number): boolean {
  return DEFINITION_AFTER.test(text.slice(end, end + 80));
}

/**
 * The values of `text`, decided span by span (docs/decisions/082-values-and-placeholders-per-span.md):
 * every candidate is kept unless a reason holds where it stands: it meets a placeholder, a
 * bracket, an illustration or a note (`noValueStretches`), it is redacted, it is the issuer of a
 * form addressed to "you", or the document still leaves its parties or dates blank and the
 * candidate stands in the wording rather than at a slot.
 */
export function detectValues(text: string, placeholders: readonly Finding[] = []): Finding[] {
  const lines = linesOf(text, MAX_SCANNED_CHARS);
  let preambleEnd = lines.findIndex((line) => PREAMBLE_END.test(line.text));
  if (preambleEnd < 0 || preambleEnd > MAX_PREAMBLE_LINES)
    preambleEnd = Math.min(lines.length, MAX_PREAMBLE_LINES);
  // A preamble's sentence may run on to the next line ("an individual resident" / "of the State
  // of Florida ("Executive")"): each preamble line is read with the line it runs on to.
  const repeated = repeatedLines(lines);
  // Not onto a running header or footer: a page break put it inside the sentence ("… the
  // Commonwealth of" / "Updated: January 2011" / "Virginia …"), it does not continue it.
  const runOn = (i: number) => (repeated.has(lines[i + 1]?.text ?? '') ? lines[i]! : withNextLine(lines, i));
  const preamble = lines.map((line, i) => (i < preambleEnd ? runOn(i) : line));
  const found = findParties(preamble, preambleEnd);
  const parties = found.parties;
  const candidates = found.candidates.map((c) => inText(text, c));
  candidates.push(...addressee(lines.slice(0, MAX_PREAMBLE_LINES)));
  // The parties the preamble names, and a letter's addressee, stand at their slots.
  for (const c of candidates) c.slot = true;
  const context: LabelContext = { parties, role: null, columnRoles: [] };
  const definedTerms = quotedTerms(lines);
  const definitions = quotedDefinitions(lines);
  // A party's name that the document itself quotes as a defined term ("Counterparty") is the term.
  const keptParties = candidates.filter((c) => !definitions.has(c.text.toLowerCase()));
  candidates.length = 0;
  candidates.push(...keptParties);
  const readerLines: Stretch[] = [];
  let signaturePage = false;
  let lawSection = false;
  for (const [i, line] of lines.entries()) {
    // The signer typed above "Signature" (values/signatories.ts), even where the page types the
    // name twice (above the signatures and under them): no running header stands above a caption.
    candidates.push(...slots(captionedSigner(line, lines[i + 1])));
    if (repeated.has(line.text)) continue;
    const inPreamble = i < preambleEnd;
    // Only the sentence that names the parties can name the reader as one: a later "to You, Your
    // employment" speaks to a party the contract defined as "You" ("Joseph Roe (hereafter "You")").
    const reader = inPreamble ? readerAt(firstSentenceOf(line.text)) : -1;
    if (reader >= 0) readerLines.push({ start: line.index, end: line.index + reader });
    // The page starts within this line or before it, and ends at an exhibit's heading.
    if (signaturePage && AFTER_SIGNATURES.test(line.text) && line.text.split(' ').length <= 12)
      signaturePage = false;
    const pageStart = signaturePage ? 0 : SIGNATURE_PAGE.exec(line.text)?.index;
    if (pageStart !== undefined) {
      signaturePage = true;
      // A label row's label ("Title of Contractor Employee\tVice President") names no signatory.
      if (!isLabelRow(line))
        candidates.push(
          ...slots(titledSignatories(subSpan(line, Math.max(0, pageStart - 200)), context.role)),
        );
    }
    if (signaturePage) {
      const signing = signingParty(line, lines[i + 1], parties);
      if (signing) candidates.push({ ...signing, slot: true });
    }
    // Who signs an English execution clause, and a party defined by "means" (values/signatories.ts,
    // values/definitions.ts), wherever they stand.
    candidates.push(...slots(executionClause(line)), ...slots(meansDefinition(line)));
    // A label's own value is at its slot; other terms in the label line's wording are not.
    candidates.push(
      ...labelledValues(line, context, rowCells(text, line)).map((c) => (c.named ? { ...c, slot: true } : c)),
    );
    // A signature block's caption printed under its rule: what is written above it is its field.
    if (line.text.includes('___') || lines[i + 1]?.text.includes('___'))
      candidates.push(...slots(captionedFields([line, lines[i + 1], lines[i + 2]], context.role)));
    // A sentence may run on to the next line (hard-wrapped filings): the clause is read across it.
    const sentence = runOn(i);
    candidates.push(...clauseValues(sentence, lawSection).map((c) => inText(text, c)));
    // The paragraph under a "Governing Law" heading names the law without a verb to say so.
    lawSection = LAW_HEADING.test(line.text);
    candidates.push(...organizationsIn(line, parties, definedTerms), ...unitsOf(line));
    candidates.push(...quotedValues(line, definitions));
    const typed = typedValues(line);
    if (i < preambleEnd) nameByLead(line, typed);
    nameByDefinitions(line, typed);
    for (const c of typed) {
      // The agreement's date in the preamble ("dated as of March 1, 2026") is its slot.
      const cue =
        c.type === 'date' &&
        inPreamble &&
        DATE_CUE.test(text.slice(Math.max(line.index, c.index - 40), c.index));
      if (c.named || cue) c.slot = true;
    }
    candidates.push(...typed);
  }
  // A line that is all placeholder: an entry a draft still leaves to write.
  const blankLines = new Set(placeholders.filter((p) => p.index >= 0).map((p) => p.text));
  candidates.push(
    ...formValues(text, lines),
    ...headedEntries(lines, (line) => blankLines.has(line.text.trim())),
    ...promptedEntries(lines),
  );
  const stretches = noValueStretches(text, lines, placeholders);
  const open =
    slotsOpen(text, lines, placeholders, preambleEnd) &&
    writtenParties(keptParties, stretches) < MIN_WRITTEN_PARTIES;
  const kept = candidates.filter(
    (c) =>
      !meets(stretches, c.index, c.index + c.text.length) &&
      !isRedacted(c.text) &&
      !listedAcrossBreak(c.text) &&
      !(c.type !== 'date' && meets(readerLines, c.index, c.index + c.text.length)) &&
      (!open || c.slot === true),
  );
  return resolve(kept);
}

/** A line's first sentence: up to a full stop after a word in lower case and before a capital. */
function firstSentenceOf(line: string): string {
  const end = line.search(/[a-z0-9)”"]\.\s+[A-Z]/);
  return end < 0 ? line : line.slice(0, end + 2);
}

const slots = (found: Candidate[]) => found.map((c) => ({ ...c, slot: true }));

/**
 * A heading of its own line for the choice of law ("GOVERNING LAW", "12. Applicable Law."): the
 * paragraph after it is the clause.
 */
const LAW_HEADING = /^(?:\d{1,3}(?:\.\d{1,3})*\.?\s)?(?:governing law|applicable law|choice of law|law)\.?$/i;

/**
 * A name read across a line break at an "and" ("TSMP Law Corporation and" / "Cherrin Wong",
 * "BETWEEN ALCIS-CA AND" / "OUR EMPLOYEES"): two things listed, or a heading in capitals, not one
 * value; a company's name that its legal form ends is one ("ATHENE ANNUITY AND" / "LIFE COMPANY").
 */
function listedAcrossBreak(text: string): boolean {
  return /\s(?:and|AND|&)\n/.test(text) && !isEntitySuffix(text.slice(text.lastIndexOf(' ') + 1));
}

/**
 * A candidate read on a run-on sentence (`withNextLine`) with its text as the document has it:
 * across the break, the line break stands where the sentence has a space.
 */
function inText(text: string, candidate: Candidate): Candidate {
  candidate.text = text.slice(candidate.index, candidate.index + candidate.text.length);
  return candidate;
}

/**
 * Every quoted term of up to 60 characters, in lower case ("Group Company" means …, the
 * “Operating Company”): a name the contract defines and uses as its own word, not a value.
 */
function quotedTerms(lines: Span[]): Set<string> {
  const terms = new Set<string>();
  for (const { text } of lines) {
    for (let at = 0; at < text.length; at += 1) {
      const open = text[at]!;
      if (open !== '"' && open !== '“') continue;
      const close = text.indexOf(open === '“' ? '”' : '"', at + 1);
      if (close < 0) break;
      if (close - at <= 61) terms.add(text.slice(at + 1, close).toLowerCase());
      at = close;
    }
  }
  return terms;
}

/** A line that is a date alone: "March 17, 2010", "3/15/2018", "12/10/07". */
const DATE_LINE = /^(?:[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4}|\d{1,2}\/\d{1,2}\/(?:\d{2}|\d{4}))$/;

/**
 * A field of a party's block, which a form prints again in the signature block or the notices
 * ("Address: 1 Main Street, Austin, TX 78701" under each): the signer's name, title and date, and
 * the party's address, e-mail, phone and fax, in English, Dutch, French, German, Spanish and Italian.
 */
const PARTY_FIELD =
  /\b(?:By|Name|Title|Date|Address|Adres|Adresse|Anschrift|Dirección|Indirizzo|E-?mail|Phone|Telephone|Tel|Fax)\.?\s?:/;

/**
 * Lines that stand unchanged more than once and hold no party's field: running headers and footers
 * ("Source: ACME CORP, 8-K, 4/6/2018" on every page of a filed exhibit), not the deal's terms.
 */
function repeatedLines(lines: Span[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const { text } of lines) {
    if (text.length > 200 || PARTY_FIELD.test(text)) continue;
    // A letter's date, which its continuation pages repeat in their heading ("March 17, 2010" /
    // "Page 2"): the letter's date all the same. And a signature block's dates: each signer dates
    // his signature ("Date: 3/15/2018" under each), the same day when they sign together.
    if (DATE_LINE.test(text)) continue;
    if (seen.has(text)) repeated.add(text);
    seen.add(text);
  }
  return repeated;
}

/**
 * What introduces the contract's own date in its preamble: "dated as of", "made and entered into
 * as of", "entered into this", "effective as of" (the last, its effective date).
 */
const DATE_LEAD =
  /\b(?:(?:is |are )?dated(?: as of)?|(?:made|entered into|executed)(?: and (?:entered into|executed))?(?: (?:as of|on|this|effective))?|(?:effective|made effective) (?:as of|on)|as of)(?: the)? $/i;

/** A preamble's date after "dated as of", "made … as of", "effective as of": the agreement's or its effective date. */
function nameByLead(line: Span, typed: Candidate[]): void {
  for (const candidate of typed) {
    if (candidate.type !== 'date') continue;
    const at = candidate.index - line.index;
    const lead = DATE_LEAD.exec(line.text.slice(Math.max(0, at - 50), at));
    if (!lead) continue;
    candidate.name = /effective/i.test(lead[0]) ? 'effective_date' : 'agreement_date';
    candidate.named = true;
  }
}

const DOCUMENT_TERM = /\b(?:Agreement|Contract|Amendment|Addendum|Schedule|Exhibit|Order Form|Note)$/i;

/** `March 1, 2026 (the "Effective Date")`: a value right before a definition takes its term's name. */
function nameByDefinitions(line: Span, typed: Candidate[]): void {
  for (const definition of definitionsIn(line.text)) {
    // "… as of October 1, 1999 (the "Agreement")": the document is defined, not the date.
    if (definition.group || DOCUMENT_TERM.test(definition.terms[0]!.text)) continue;
    // A party's address or e-mail before its definition is the party's, not the defined thing.
    const value = typed.find((c) => {
      if (c.type === 'address' || c.type === 'email' || c.type === 'phone') return false;
      const end = c.index - line.index + c.text.length;
      return end <= definition.open && /^[\s,]*$/.test(line.text.slice(end, definition.open));
    });
    if (value) {
      value.name = toSnakeCase(definition.terms[0]!.text);
      value.named = true;
    }
  }
}

/**
 * Whether an unnamed candidate starts before a labelled value and ends inside it: "$ 1,500" read
 * over the `$` a form prints before the blank that "1,500" filled (`⎣___⎦ % / $ ⎣___⎦`). The
 * label's value is what was written in; the print before it is the form's. A binary search in
 * the named candidates (sorted by index).
 */
function runsIntoLabelled(candidate: Candidate, named: readonly Candidate[]): boolean {
  let low = 0;
  let high = named.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (named[mid]!.index <= candidate.index) low = mid + 1;
    else high = mid;
  }
  const next = named[low];
  const end = candidate.index + candidate.text.length;
  return next !== undefined && next.index < end && end <= next.index + next.text.length;
}

/**
 * One candidate per place (a named one over a typed one, the longer over what it contains, the
 * earlier over one it overlaps), and one name per text: the first name its context gave it.
 */
function resolve(candidates: Candidate[]): Finding[] {
  const named = candidates.filter((c) => c.named).sort((a, b) => a.index - b.index);
  const ordered = candidates
    .filter((c) => c.text.trim() === c.text && c.text.length > 0)
    .filter((c) => c.named || !runsIntoLabelled(c, named))
    .sort((a, b) => a.index - b.index || b.text.length - a.text.length || Number(b.named) - Number(a.named));
  const kept: Candidate[] = [];
  let coveredUntil = -1;
  for (const candidate of ordered) {
    if (candidate.index < coveredUntil) continue;
    kept.push(candidate);
    coveredUntil = candidate.index + candidate.text.length;
  }
  const nameOf = new Map<string, string>();
  for (const candidate of kept)
    if (candidate.named && !nameOf.has(candidate.text)) nameOf.set(candidate.text, candidate.name);
  return kept.map((c) => ({
    name: nameOf.get(c.text) ?? c.name,
    kind: 'value' as const,
    text: c.text,
    index: c.index,
  }));
}
