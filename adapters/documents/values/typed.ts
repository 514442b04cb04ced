/**
 * Values recognised by their form wherever they stand: dates (chrono-node), money, percentages,
 * durations, e-mail addresses, phone numbers and postal addresses. Each pattern is linear:
 * it starts at a character that cannot begin the one before it (a look-behind), so a failed
 * attempt never rescans a run another attempt already read.
 */
import * as chrono from 'chrono-node/en';
import type { Candidate, ValueType } from './candidate.ts';
import type { Span } from './lines.ts';
import { wordsStart } from './numbers.ts';

const MONEY =
  /(?<![\w$€£¥])(?:(?:US|U\.S\.|C|A|NZ|HK|S)?\$|€|£|¥|(?:USD|EUR|GBP|CAD|AUD|CHF|JPY|CNY|INR|SGD)\s?)\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?(?:\s?(?:million|billion|thousand)\b|(?:MM|M|K|B|bn|k)\b)?/g;
/** A figure followed by its currency: "5,000 USD", "1,000 euros". */
const MONEY_AFTER =
  /(?<![\w.,$€£¥])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?\s?(?:million\s|billion\s)?(?:USD|EUR|GBP|CAD|AUD|CHF|U\.S\. [Dd]ollars|[Dd]ollars|[Ee]uros)\b/g;
const PERCENT = /(?<![\w.,])\d{1,3}(?:\.\d{1,4})?\s?(?:%|percent\b|per cent\b)/gi;
const DURATION =
  /(?<![\w.,])\(?\d{1,4}\)?[\s-](?:calendar\s|business\s|working\s|consecutive\s)?(?:hours?|days?|weeks?|months?|years?)\b/gi;
const PHONE = /(?<![\w+])(?:\+?1[ .-])?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}(?!\d)/g;
const INTERNATIONAL_PHONE = /(?<![\w+])\+\d{1,3}(?:[ .-]\(?\d{1,5}\)?){2,5}(?![\d-])/g;
/** The end of a postal address: a US state and ZIP code, or a UK or Canadian postcode. */
const POSTCODE =
  /(?<![\w-])(?:[A-Z]{2},?\s\d{5}(?:-\d{4})?|[A-Z][a-z]+\s\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}|[A-Z]\d[A-Z]\s\d[A-Z]\d)(?![\w-])/g;
const MONTH = /jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec/i;
/** "1st day of March, 2026": chrono reads the month and year; the day before them is the date's too. */
const DAY_OF = /(?<![\w])\d{1,2}(?:st|nd|rd|th)? day of $/i;
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
    for (const m of line.matchAll(MONEY)) add('amount', withWords(line, m.index, m[0]), closeParen(line, m));
    for (const m of line.matchAll(MONEY_AFTER)) add('amount', m.index, m.index + m[0].length);
    // "five percent (5%)" is the figure alone: it carries the whole value.
    for (const m of line.matchAll(PERCENT)) add('percentage', m.index, m.index + m[0].length);
    for (const m of line.matchAll(DURATION)) {
      add('duration', withDurationWords(line, m.index), m.index + m[0].length);
    }
    for (const m of line.matchAll(PHONE)) add('phone', m.index, m.index + m[0].length);
    for (const m of line.matchAll(INTERNATIONAL_PHONE)) add('phone', m.index, m.index + m[0].length);
    for (const m of line.matchAll(POSTCODE)) {
      const start = addressStart(line, m.index);
      if (start >= 0) add('address', start, m.index + m[0].length);
    }
  }
  for (const email of emails(line)) add('email', email.start, email.end);
  return found;
}

/** Dates with a month (named or numbered): chrono's relative dates ("within 30 days") are durations. */
function dates(line: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  for (const result of chrono.casual.parse(line)) {
    let { text } = result;
    let start = result.index;
    // chrono includes a leading "on" or "the" in what it read; the value is the date.
    const lead = /^(?:on|the|of|from|by|dated|as of)\s/i.exec(text);
    if (lead) {
      start += lead[0].length;
      text = text.slice(lead[0].length);
    }
    const numeric = /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/.test(text);
    const named = MONTH.test(text) && /\d/.test(text) && result.start.isCertain('month');
    if (!numeric && !named) continue;
    const dayOf = DAY_OF.exec(line.slice(Math.max(0, start - 20), start));
    if (dayOf) start -= dayOf[0].length;
    found.push({ start, end: result.index + result.text.length });
  }
  return found;
}

/** A figure in parentheses after its words ("ten thousand dollars ($10,000)") with the words. */
function withWords(line: string, index: number, match: string): number {
  if (line[index - 1] !== '(' || line[index + match.length] !== ')') return index;
  const start = wordsStart(line, index - 1);
  return start < index - 1 ? start : index;
}

function closeParen(line: string, match: RegExpMatchArray): number {
  const end = match.index! + match[0].length;
  return withWords(line, match.index!, match[0]) < match.index! ? end + 1 : end;
}

/** "thirty (30) days": the words before the parenthesised figure are the duration's too. */
function withDurationWords(line: string, index: number): number {
  if (line[index] !== '(') return index;
  const start = wordsStart(line, index);
  return start < index ? start : index;
}

/**
 * Where the postal address ending at `postcode` starts: the furthest number (a street number)
 * or "P.O. Box" within 120 characters before it, in the same sentence, that starts a word after
 * the line's start, a comma, a colon, an opening parenthesis or "at". −1 when there is none.
 */
function addressStart(line: string, postcode: number): number {
  const floor = Math.max(0, postcode - 120);
  let best = -1;
  for (let at = postcode - 1; at >= floor; at -= 1) {
    const char = line[at]!;
    // Not across a clause or a parenthesis (a period may end "St." inside the address).
    if (char === ';' || char === '(' || char === ')') break;
    const startsWord = at === 0 || line[at - 1] === ' ';
    if (!startsWord) continue;
    const rest = line.slice(at, at + 12);
    if (/^\d+[A-Za-z]?(?:-\d+)?,? [A-Z0-9]/.test(rest) || /^P\.? ?O\.? Box/i.test(rest)) {
      const before = line.slice(Math.max(0, at - 4), at);
      if (at === 0 || /(?:[,:(]| at| to) $/.test(before) || before.endsWith('\t')) best = at;
    }
  }
  return best;
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
