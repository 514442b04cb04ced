/**
 * Where a value candidate is no value, whatever its form: the stretches of a text that hold no
 * deal value by a convention of how templates and contracts are written
 * (docs/decisions/082-values-and-placeholders-per-span.md). Each is decided where it stands, never
 * by a verdict on the whole document:
 * - a placeholder, and what overlaps one: the blank is the variable (`{{vessel}} Voyage number:`);
 * - square brackets and braces: drafters bracket what is still to be decided (a blank, a drafting
 *   alternative `[U.S. Dollars/Bitcoin]`, optional wording, an instruction `[Insert date, e.g.
 *   January 1, 2025]`), filed contracts what was taken out (`[***]`); braces are a template language's markup;
 * - an illustration: what follows "e.g.", "for example", "for instance" up to the end of its
 *   parenthesis or clause, the publisher's example, not this deal's term;
 * - a drafting note, instruction, comment or footnote paragraph (`Note: …`, `Drafting Note: …`,
 *   `Instructions: …`, `† …`): addressed to whoever fills the form in.
 * All of it is found in one pass over the text (brackets with a stack, markers with bounded
 * windows): linear in the text, which is user input.
 */
import type { Finding } from '../findings.ts';
import type { Span } from './lines.ts';

/** A half-open stretch of the text: [start, end). */
export interface Stretch {
  start: number;
  end: number;
}

/** Brackets spanning more than this are not a drafter's (the placeholder scan's bound, brackets.ts). */
const MAX_BRACKET = 600;
/** An illustration runs at most this far after its marker. */
const MAX_EXAMPLE = 200;
/** "e.g.", "for example", "for instance", "example:": what introduces an illustration. */
const EXAMPLE_MARKER = /\b(?:e\.\s?g\.|for example|for instance|example:)/gi;
/** Where an illustration ends: its parenthesis or bracket closes, or its clause or sentence ends. */
const EXAMPLE_END = /[)\];]|\.\s/;
/**
 * A paragraph addressed to whoever fills the form in: a drafting note, an instruction, a
 * comment, a tip, an example, a footnote (`† …`; a `*` opening a line is a list bullet, and the text format drops it).
 */
const NOTE_LINE =
  /^(?:(?:drafting |explanatory |editor'?s |practice |user )?notes?(?: to (?:draft|drafter|user|form))?\s?[:.-]|instructions?\s?[:.-]|comments?\s?:|guidance\s?:|tips?\s?:|examples?\s?:|footnote\b|[†‡]\s?)/i;

/** The stretches of `text` where no value stands (sorted, disjoint). */
export function noValueStretches(
  text: string,
  lines: readonly Span[],
  placeholders: readonly Finding[],
): Stretch[] {
  const stretches: Stretch[] = [];
  for (const p of placeholders) {
    if (p.index >= 0 && p.occurrences === undefined)
      stretches.push({ start: p.index, end: p.index + p.text.length });
  }
  stretches.push(...bracketStretches(text));
  for (const line of lines) {
    if (NOTE_LINE.test(line.text)) {
      stretches.push({ start: line.index, end: line.index + line.text.length });
      continue;
    }
    for (const m of line.text.matchAll(EXAMPLE_MARKER)) {
      const window = line.text.slice(m.index, m.index + MAX_EXAMPLE);
      const stop = EXAMPLE_END.exec(window.slice(m[0].length));
      const length = stop ? m[0].length + stop.index : window.length;
      stretches.push({ start: line.index + m.index, end: line.index + m.index + length });
    }
  }
  return merged(stretches);
}

/**
 * Every pair of square brackets and of braces (each closing one closes the innermost open one of
 * its kind), up to MAX_BRACKET long. Braces are a template language's markup (Mustache, Jinja,
 * docxtemplater: `{% if … %}`, `{"id": 1}`); a contract's own wording has none.
 */
function bracketStretches(text: string): Stretch[] {
  const found: Stretch[] = [];
  const squares: number[] = [];
  const braces: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === '[') squares.push(at);
    else if (char === '{') braces.push(at);
    else if (char === ']' || char === '}') {
      const start = (char === ']' ? squares : braces).pop();
      if (start !== undefined && at - start <= MAX_BRACKET) found.push({ start, end: at + 1 });
    }
  }
  return found;
}

function merged(stretches: Stretch[]): Stretch[] {
  const sorted = stretches.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Stretch[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/**
 * Whether the span [start, end) meets one of `stretches` (sorted, disjoint): a binary search, so
 * each candidate costs a logarithm.
 */
export function meets(stretches: readonly Stretch[], start: number, end: number): boolean {
  let low = 0;
  let high = stretches.length;
  // The first stretch that ends after `start`.
  while (low < high) {
    const mid = (low + high) >> 1;
    if (stretches[mid]!.end <= start) low = mid + 1;
    else high = mid;
  }
  return low < stretches.length && stretches[low]!.start < end;
}

/**
 * A redaction mark of a filed contract (`[***]`, `[*****]`, `[* * *]`, `***`): the SEC lets a
 * filer omit confidential terms and mark the place (Regulation S-K Item 601(b)(10)(iv)). What it
 * marks is gone: no value to keep, and no blank of a form either.
 */
export function isRedacted(text: string): boolean {
  return /\*\s?\*\s?\*|\[\s?\*/.test(text);
}

/**
 * Where a line names the reader as a party ("between Card, Inc. … and you, the Merchant", "We, The
 * OpenGov Foundation, … are hiring you"), or −1: a standard form in plain language names its
 * issuer once and addresses whoever accepts it as "you". The issuer's name and address before
 * that "you" are the form's own wording, the same on every copy, not a value of this one; the
 * reader's details after it are.
 */
export function readerAt(line: string): number {
  const m = /\b(?:and|between|with|hiring|engaging|engage|hire)\s+you\b|\byou,\s/i.exec(line);
  return m ? m.index : -1;
}
