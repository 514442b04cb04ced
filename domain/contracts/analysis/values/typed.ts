/**
 * Values recognised by their form wherever they stand: dates (`dates.ts`), money, percentages,
 * durations, e-mail addresses, phone numbers and postal addresses. Each pattern is linear:
 * it starts at a character that cannot begin the one before it (a look-behind), so a failed
 * attempt never rescans a run another attempt already read.
 */
import type { Candidate, ValueType } from './candidate.ts';
import { dates } from './dates.ts';
import type { Span } from './lines.ts';
import { isEntitySuffix } from './names.ts';
import { quantities, wordsStart } from './numbers.ts';

/** A currency symbol and its figure: "$10,000", "€1.2 million" ("US$", "C$" read before it). */
const MONEY_SYMBOL = /[$€£¥] ?\d[\d,.]*/g;
const DOLLAR_PREFIXES = ['U.S.', 'US', 'NZ', 'HK', 'C', 'A', 'S'];
/** A currency code and its figure: "USD 5,000.00". */
const MONEY_CODE = /\b(?:USD|EUR|GBP|CAD|AUD|CHF|JPY|CNY|INR|SGD) ?\d[\d,.]*/g;
/** A scale after a figure: "$1.2 million", "$5M". */
const SCALES = [' million', ' billion', ' thousand', 'million', 'MM', 'bn', 'M', 'K', 'k'];
/** A currency after its figure: "5,000 USD", "1,000 euros" (the figure is read backwards from it). */
const CURRENCY_AFTER = /\s(?:USD|EUR|GBP|CAD|AUD|CHF|U\.S\. [Dd]ollars|[Dd]ollars|[Ee]uros)\b/g;
const PERCENT = /(?<![\w.,])\(?\d{1,3}(?:\.\d{1,4})?\)?\s?(?:%|percent\b|per cent\b)/gi;
const DURATION =
  /(?<![\w.,])\(?\d{1,4}\)?\s(?:calendar\s|business\s|working\s|consecutive\s)?(?:hours?|days?|weeks?|months?|years?)\b/gi;
/** "(555) 123-4567", "555-123-4567", "555.123.4567": one separator throughout ("252.227-7014" is a citation). */
const PHONE =
  /(?<![\w+.-])(?:\+?1[ .-])?(?:\(\d{3}\) ?\d{3}[ .-]|\d{3}-\d{3}-|\d{3}\.\d{3}\.|\d{3} \d{3} )\d{4}(?![\d-])/g;
const INTERNATIONAL_PHONE = /(?<![\w+])\+\d{1,3}(?:[ .-]\(?\d{1,5}\)?){2,5}(?![\d-])/g;
/** The end of a postal address: a US ZIP code (after its state), or a UK or Canadian postcode. */
const ZIP = /\b\d{5}(?:-\d{4})?\b/g;
const POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b|\b[A-Z]\d[A-Z] \d[A-Z]\d\b/g;
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/;
const EMAIL_DOMAIN = /[A-Za-z0-9.-]/;

export function typedValues(span: Span): Candidate[] {
  const found: Candidate[] = [];
  const add = (type: ValueType, start: number, end: number) => {
    const text = span.text.slice(start, end);
    if (text) found.push({ type, name: type, named: false, text, index: span.index + start });
  };
  const line = span.text;
  if (/\d/.test(line)) {
    for (const date of dates(line)) add('date', date.start, date.end);
    for (const m of line.matchAll(MONEY_SYMBOL)) {
      const prefix = DOLLAR_PREFIXES.find((p) => m[0][0] === '$' && line.slice(0, m.index).endsWith(p)) ?? '';
      const start = m.index - prefix.length;
      if (/\w/.test(line[start - 1] ?? '')) continue;
      const length = amountEnd(line, m.index + m[0].length) - start;
      add('amount', withWords(line, start, length), closeParen(line, start, length));
    }
    for (const m of line.matchAll(MONEY_CODE)) add('amount', m.index, amountEnd(line, m.index + m[0].length));
    for (const m of line.matchAll(CURRENCY_AFTER)) {
      const start = figureBefore(line, m.index);
      if (start >= 0) add('amount', start, m.index + m[0].length);
    }
    // "five percent (5%)" is the figure alone: it carries the whole value.
    // "six percent (6%)", "three (3) percent": words and figures together are one value.
    for (const m of line.matchAll(PERCENT)) {
      const length = m[0].length;
      if (m[0].startsWith('(') && m[0].includes(')')) {
        // "three (3) percent": the words before the parenthesis, the unit after it.
        const start = wordsStart(line, m.index);
        if (start < m.index) add('percentage', start, m.index + length);
        continue;
      }
      // "(15%)" is read as "15%" inside its parenthesis, with the words before it if any.
      const index = m[0].startsWith('(') ? m.index + 1 : m.index;
      const figure = m[0].startsWith('(') ? length - 1 : length;
      add('percentage', withWords(line, index, figure), closeParen(line, index, figure));
    }
    for (const m of line.matchAll(DURATION)) {
      // "a 12 month term", "48-Hour Forecast": a number of units as an adjective describes, it is no term.
      // But drafters write a term's number in words and figures to fix it beyond doubt ("a thirty
      // (30) day notice period", "each Two (2) Year contract"): so written, it is the deal's term.
      const unit = m[0].slice(m[0].lastIndexOf(' ') + 1);
      const start = withDurationWords(line, m.index);
      if (!/s$/i.test(unit) && Number(m[0].replace(/\D/g, '')) !== 1 && start === m.index) continue;
      // "a three hundred sixty-five (365) day year": interest's day-count basis, no term of the deal.
      if (
        /^day$/i.test(unit) &&
        /^[\s-]year/i.test(line.slice(m.index + m[0].length, m.index + m[0].length + 6))
      )
        continue;
      add('duration', start, m.index + m[0].length);
    }
    for (const q of quantities(line))
      found.push({
        type: 'value',
        name: 'quantity',
        named: false,
        text: line.slice(q.start, q.end),
        index: span.index + q.start,
      });
    for (const m of line.matchAll(PHONE)) add('phone', m.index, m.index + m[0].length);
    for (const m of line.matchAll(INTERNATIONAL_PHONE)) add('phone', m.index, m.index + m[0].length);
    for (const m of line.matchAll(ZIP)) {
      const state = stateBefore(line, m.index);
      const start = state >= 0 ? addressStart(line, state) : -1;
      if (start >= 0) add('address', start, m.index + m[0].length);
    }
    for (const m of line.matchAll(POSTCODE)) {
      const start = addressStart(line, m.index);
      if (start >= 0) add('address', start, m.index + m[0].length);
    }
  }
  for (const email of emails(line)) add('email', email.start, email.end);
  for (const address of cuedAddresses(line)) add('address', address.start, address.end);
  return found;
}

/** What introduces an address in a preamble or a notice: "having an address at", "with offices at", "Address:". */
const ADDRESS_CUE =
  /\b(?:address (?:at|is)|addresses at|offices? (?:at|located at)|headquarters (?:at|located at)|located at|residing at|resident at|place of business (?:at|is)|Address:)\s/gi;
/**
 * Where an address that a cue introduced ends: a parenthesis, a clause, the next field (a label of
 * at most 40 characters: bounded, so the pattern stays linear; a signature's caption with the word
 * that says whose or which, "Authorized Signature", "Required Signature", as forms print it beside
 * the address column). A party's definition may follow its address without a parenthesis ("…
 * Clark County, Nevada, referred to as "lessor,"": the preamble's "(hereinafter) referred to as" /
 * "called" defines the party, it is no part of where it is).
 */
const ADDRESS_END =
  /[();]|,\s(?:represented|or\s|and\s|a\s|an\s|[Hh]ereinafter|herein|referred to\s|called\s|its\s|which|who)|\s(?:[Hh]ereinafter|represented|and\s(?:its|their)|Attention|ATTN|Attn|Tel|Phone|Fax|E-?mail|(?:[A-Z][a-z]{1,20}\s)?Signature)\b|\s[^\s:]{1,40}:|\s(?:and|or)\s(?=[A-Z])|\.\s(?:WHEREAS|The|This|Each|NOW)\b/;

/**
 * "with an address at 895 Don Mills Road Bldg 2 Toronto Ontario Canada (…)": an address of any
 * country, from its cue to the parenthesis or clause that follows it (at most 150 characters,
 * with a number in it).
 */
function cuedAddresses(line: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  for (const m of line.matchAll(ADDRESS_CUE)) {
    const start = m.index + m[0].length;
    const window = line.slice(start, start + 150);
    const stop = ADDRESS_END.exec(window);
    // No end in sight: the address ends the line, or is no address (150 characters of anything).
    let text = stop ? window.slice(0, stop.index) : start + window.length >= line.length ? window : '';
    // A US address ends with its ZIP code, a UK or Canadian one with its postcode.
    let end = -1;
    for (const zip of text.matchAll(ZIP)) {
      if (stateBefore(text, zip.index) >= 0) {
        end = zip.index + zip[0].length;
        break;
      }
    }
    const postcode = text.matchAll(POSTCODE).next().value;
    if (postcode && (end < 0 || postcode.index < end)) end = postcode.index + postcode[0].length;
    if (end > 0) text = text.slice(0, end);
    // Trailing spaces and commas off (a loop: a pattern like `[\s,]+$` is quadratic).
    let trimmed = text.length;
    while (trimmed > 0 && /[\s,]/.test(text[trimmed - 1]!)) trimmed -= 1;
    text = text.slice(0, trimmed);
    // A sentence's full stop is not the address's; an abbreviation's ("Ont.", "N.E.") is.
    if (text.endsWith('.') && !/(?:^|\s)[A-Za-z.]{1,4}\.$/.test(text)) text = text.slice(0, -1);
    if (!/^[\p{Lu}\d]/u.test(text) || !/\d/.test(text) || text.split(' ').length < 3) continue;
    found.push({ start, end: start + text.length });
  }
  return found;
}

/** Where an amount whose figure was read up to `end` ends: a sentence's comma or full stop dropped, its scale taken. */
function amountEnd(line: string, end: number): number {
  let at = end;
  while (line[at - 1] === ',' || line[at - 1] === '.') at -= 1;
  const scale = SCALES.find((s) => line.startsWith(s, at) && !/\w/.test(line[at + s.length] ?? ''));
  return scale ? at + scale.length : at;
}

/** A figure in parentheses after its words ("ten thousand dollars ($10,000)") with the words. */
function withWords(line: string, index: number, length: number): number {
  if (line[index - 1] !== '(' || line[index + length] !== ')') return index;
  const start = wordsStart(line, index - 1);
  return start < index - 1 ? start : index;
}

/** Where the amount ends: after the closing parenthesis when its words come with it. */
function closeParen(line: string, index: number, length: number): number {
  return withWords(line, index, length) < index ? index + length + 1 : index + length;
}

/** Where the figure ending at `end` starts ("1,000" of "1,000 euros", "2.5 million"), or −1. */
function figureBefore(line: string, end: number): number {
  let start = end;
  for (const scale of [' million', ' billion'])
    if (line.slice(0, start).endsWith(scale)) start -= scale.length;
  const figureEnd = start;
  while (start > 0 && /[\d,.]/.test(line[start - 1]!)) start -= 1;
  while (start < figureEnd && !/\d/.test(line[start]!)) start += 1;
  if (start === figureEnd || /[\w$€£¥]/.test(line[start - 1] ?? '')) return -1;
  return start;
}

/** The US states and territories, by postal abbreviation and by name (a ZIP code follows one of them). */
const US_STATE_CODES = new Set(
  (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ' +
    'ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP'
  ).split(' '),
);
export const US_STATE_NAMES = new Set(
  (
    'alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho ' +
    'illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota ' +
    'mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah ' +
    'vermont virginia washington wisconsin wyoming guam'
  ).split(' '),
);
/** Two-word states, by their last word. */
export const US_STATE_PAIRS: Record<string, string[]> = {
  hampshire: ['new'],
  jersey: ['new'],
  mexico: ['new'],
  york: ['new'],
  carolina: ['north', 'south'],
  dakota: ['north', 'south'],
  island: ['rhode'],
  virginia: ['west'],
  columbia: ['district of'],
  rico: ['puerto'],
};

/**
 * Where the state before a ZIP code starts ("CA 94105", "California 94105", "MA, 02140",
 * "New York 10001"), or −1 when the word there is no US state ("Rue de Rivoli, 75004" is Paris).
 */
function stateBefore(line: string, zip: number): number {
  let end = zip;
  if (line[end - 1] !== ' ') return -1;
  end -= 1;
  if (line[end - 1] === ',') end -= 1;
  let start = end;
  while (start > 0 && /[A-Za-z.]/.test(line[start - 1]!) && end - start < 20) start -= 1;
  const state = line.slice(start, end).replace(/\./g, '');
  if (US_STATE_CODES.has(state)) return start;
  const name = state.toLowerCase();
  if (US_STATE_NAMES.has(name) && /^[A-Z]/.test(state)) {
    // "West Virginia": the first word is the state's too.
    const before =
      line[start - 1] === ' '
        ? line
            .slice(Math.max(0, start - 12), start - 1)
            .split(' ')
            .at(-1)
        : '';
    const first = before?.toLowerCase();
    return first && US_STATE_PAIRS[name]?.includes(first) ? start - first.length - 1 : start;
  }
  const firsts = US_STATE_PAIRS[name];
  if (!firsts || !/^[A-Z]/.test(state)) return -1;
  for (const first of firsts) {
    if (line.slice(Math.max(0, start - first.length - 1), start).toLowerCase() === `${first} `)
      return start - first.length - 1;
  }
  return -1;
}

/** "thirty (30) days": the words before the parenthesised figure are the duration's too. */
function withDurationWords(line: string, index: number): number {
  return line[index] === '(' ? wordsStart(line, index) : index;
}

/**
 * Where the postal address ending at `postcode` starts: the furthest number (a street number)
 * or "P.O. Box" within 120 characters before it, in the same sentence, that starts a word after
 * the line's start, a comma, a colon, an opening parenthesis, "at" or "of" (a preamble's "Acme Ltd
 * of 1 High Street, …"), or after a name or an address before it (`afterName`). −1 when there is none.
 */
function addressStart(line: string, postcode: number): number {
  const floor = Math.max(0, postcode - 120);
  let best = -1;
  for (let at = postcode - 1; at >= floor; at -= 1) {
    const char = line[at]!;
    // Not across a clause, a parenthesis (a period may end "St." inside the address) or a list
    // ("… CA 92009 and ACME located at 1 Main St …", "… NY 10001 or 5 Elm Rd …").
    if (char === ';' || char === '(' || char === ')') break;
    if (char === ' ' && /^ (?:and|or) [A-Z0-9]/.test(line.slice(at, at + 6))) break;
    const startsWord = at === 0 || line[at - 1] === ' ';
    if (!startsWord) continue;
    const rest = line.slice(at, at + 12);
    // An address before this one ends at its ZIP code: addresses listed one after another
    // ("Vinton, Virginia 24179 P.O. Box 13007 Roanoke, Virginia 24030") are each their own.
    if (/^\d{5}(?:-\d{4})?(?![^\s,])/.test(line.slice(at, at + 11)) && stateBefore(line, at) >= 0) break;
    // An address has one street number: a number right before another that starts a street
    // ("Suite 200 6795 Edmond St") is the end of another address, two columns read across.
    if (/^\d+ \d+[A-Za-z]?,? [A-Z]/.test(line.slice(at, at + 20))) break;
    if (/^\d+[A-Za-z]?(?:-\d+)?,? [A-Z0-9]/.test(rest) || /^P\.? ?O\.? Box/i.test(rest)) {
      const before = line.slice(Math.max(0, at - 5), at);
      if (
        at === 0 ||
        /(?:[,:(]| at| of| to| or| and) $/.test(before) ||
        before.endsWith('\t') ||
        afterName(line, at)
      )
        best = at;
    }
  }
  return best;
}

/**
 * Whether the word before `at` ends a company's name or an address before it: a notice or a
 * preamble block gives a party's name and then its address ("Data Call Technologies, Inc. 600
 * Kenrick, …", "Acme GmbH 12 Hauptstraße …"), and a list of addresses puts one after another's ZIP
 * code; the text reads the block's lines as one.
 */
function afterName(line: string, at: number): boolean {
  const word =
    line
      .slice(Math.max(0, at - 20), at - 1)
      .split(' ')
      .at(-1) ?? '';
  return (
    isEntitySuffix(word) || (/^\d{5}(?:-\d{4})?$/.test(word) && stateBefore(line, at - 1 - word.length) >= 0)
  );
}

function emails(line: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  let from = 0;
  for (;;) {
    const at = line.indexOf('@', from);
    if (at < 0) return found;
    from = at + 1;
    let start = at;
    while (start > 0 && at - start < 64 && EMAIL_LOCAL.test(line[start - 1]!)) start -= 1;
    let end = at + 1;
    while (end < line.length && end - at < 254 && EMAIL_DOMAIN.test(line[end]!)) end += 1;
    while (end > at + 1 && line[end - 1] === '.') end -= 1;
    while (start < at && line[start] === '.') start += 1;
    const labels = line.slice(at + 1, end).split('.');
    const plausible = labels.length >= 2 && labels.every(Boolean) && /^[A-Za-z]{2,}$/.test(labels.at(-1)!);
    if (start < at && plausible) {
      found.push({ start, end });
      from = end;
    }
  }
}
