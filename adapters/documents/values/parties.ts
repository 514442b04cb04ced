/**
 * The parties of a contract: each one's name where the contract defines it
 * (`TechCo Inc. (the "Provider")`, `Acme, Inc., a Delaware corporation ("Acme")`) or lists
 * it in the preamble ("between Globex Corporation and Initech GmbH"), and the role it goes by.
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';
import { entityBefore, nameAt } from './names.ts';

export interface Party {
  /** snake_case: the role's defined term (`provider`), else `party_1`, `party_2`, … */
  role: string;
  name: string;
  /** The short name the contract gives it (`Acme`), when it gives one (a defined term: not a value). */
  nickname?: string;
  /** The defined role as written (`Provider`), to recognise it in signature blocks. */
  term?: string;
}

/** A parenthesised definition: `(the "Provider")`, `(hereinafter "Acme" or the "Company")`. */
export interface Definition {
  /** Where the parenthesis opens and closes, as offsets in the line. */
  open: number;
  close: number;
  terms: { text: string; offset: number; article: boolean }[];
  /** The definition speaks of several things at once ("each a "Party""). */
  group: boolean;
}

const OPENING_QUOTES = '“"';
const CLOSING_QUOTES = '”"';

/** The quoted terms of a parenthesis's inside (each at most 60 characters), and the words between them. */
function quotedTerms(inside: string): { terms: { text: string; at: number }[]; rest: string } {
  const terms: { text: string; at: number }[] = [];
  let rest = '';
  let from = 0;
  for (let at = 0; at < inside.length; at += 1) {
    if (!OPENING_QUOTES.includes(inside[at]!)) continue;
    let close = at + 1;
    while (close < inside.length && close - at <= 61 && !CLOSING_QUOTES.includes(inside[close]!)) close += 1;
    const text = inside.slice(at + 1, close);
    if (close >= inside.length || close - at > 61 || !text.trim() || text.trim() !== text) continue;
    terms.push({ text, at: at + 1 });
    rest += ` ${inside.slice(from, at)}`;
    from = close + 1;
    at = close;
  }
  return { terms, rest: `${rest} ${inside.slice(from)}`.trim() };
}
const GROUP = /\b(?:each|collectively|together|individually|jointly|both|respectively)\b/i;
/** Words that make a definition's subject a document or a date, never a party. */
const NOT_PARTY_WORDS = new Set(
  'agreement contract date schedule exhibit order form terms policy plan information services products software'.split(
    ' ',
  ),
);

/** "the Seller", "hereinafter the Buyer": one to three capitalised words after "the", or null. */
function unquotedTerm(inside: string): string | null {
  const words = inside.trim().split(' ');
  let first = 0;
  while (first < words.length && /^(?:hereinafter|referred|to|as|called)$/i.test(words[first]!)) first += 1;
  if (words[first]?.toLowerCase() !== 'the') return null;
  const term = words.slice(first + 1);
  if (term.length === 0 || term.length > 3 || !term.every((w) => /^[A-Z][a-z]+$/.test(w))) return null;
  return term.join(' ');
}

/** The definitions in one line, each in a parenthesis of at most 200 characters. */
export function definitionsIn(line: string): Definition[] {
  const found: Definition[] = [];
  let from = 0;
  for (;;) {
    const open = line.indexOf('(', from);
    if (open < 0) return found;
    from = open + 1;
    let close = open + 1;
    while (close < line.length && close - open <= 200 && line[close] !== ')' && line[close] !== '(')
      close += 1;
    if (line[close] !== ')') continue;
    const inside = line.slice(open + 1, close);
    const quoted = quotedTerms(inside);
    const bare = quoted.terms.length === 0 ? unquotedTerm(inside) : null;
    if (bare) {
      // "(the Seller)": a definition without quotes.
      const offset = open + 1 + inside.lastIndexOf(bare);
      found.push({ open, close, terms: [{ text: bare, offset, article: true }], group: false });
      from = close + 1;
      continue;
    }
    if (quoted.terms.length === 0) continue;
    const terms = quoted.terms.map((term) => ({
      text: term.text,
      offset: open + 1 + term.at,
      article: /\bthe\s*$/i.test(inside.slice(Math.max(0, term.at - 6), term.at - 1)),
    }));
    // The rest is only connecting words: "the", "hereinafter referred to as", "or".
    const rest = quoted.rest;
    if (rest.split(/\s+/).length > 8 || /\d/.test(rest)) continue;
    found.push({ open, close, terms, group: GROUP.test(rest) });
    from = close + 1;
  }
}

/** Whether `term` is a short form of `name` ("Acme" of "Acme Inc.", "IBM" of "International Business Machines"). */
function isShortName(term: string, name: string): boolean {
  const nameWords = name.toLowerCase().split(/[\s,]+/);
  const termWords = term.toLowerCase().split(/\s+/);
  if (termWords.every((word) => nameWords.includes(word))) return true;
  const initials = name
    .split(/\s+/)
    .filter((word) => /^[A-Z]/.test(word))
    .map((word) => word[0])
    .join('');
  return term.length >= 2 && term === term.toUpperCase() && initials.startsWith(term);
}

/**
 * Where the stretch naming a party starts before its definition: after "between", "and", "by",
 * ";" (its descriptor, "a Delaware corporation with offices at …", lies between name and definition).
 */
const SEPARATORS = /(?:^|\s)(?:between|among|and|by)\s|[;:]\s/gi;

/** How far back before a definition its party's name is sought (a long line must stay linear). */
const MAX_STRETCH = 400;

function partyStretchStart(line: string, open: number): number {
  const from = Math.max(0, open - MAX_STRETCH);
  let start = from;
  for (const m of line.slice(from, open).matchAll(SEPARATORS)) start = from + m.index + m[0].length;
  // A list marker opening the line: "1.", "(a)", "(i)".
  const marker = /^(?:\d{1,3}[.)]|\([0-9a-z]{1,4}\))\s/i.exec(line.slice(start, open));
  return marker ? start + marker[0].length : start;
}

/**
 * The parties defined in `lines`: names before definitions anywhere when they end with a
 * legal-entity suffix, and any name before a definition in the preamble (the lines before
 * `preambleEnd`), where parties are introduced. Candidates for their names.
 */
export function findParties(
  lines: Span[],
  preambleEnd: number,
): { parties: Party[]; candidates: Candidate[] } {
  const parties: Party[] = [];
  const candidates: Candidate[] = [];
  const byName = new Map<string, Party>();
  let unnamed = 0;
  const addParty = (nameText: string, nameIndex: number, termOf: Definition | null) => {
    const roleTerm = termOf?.terms.find((t) => t.article || !isShortName(t.text, nameText));
    const short = termOf?.terms.find((t) => t !== roleTerm && !t.article && isShortName(t.text, nameText));
    let party = byName.get(nameText);
    if (!party) {
      const role = roleTerm ? toSnakeCase(roleTerm.text) : '';
      party = { role: role || `party_${++unnamed}`, name: nameText, term: roleTerm?.text };
      byName.set(nameText, party);
      parties.push(party);
    }
    candidates.push({
      type: 'party',
      name: `${party.role}_name`,
      named: true,
      text: nameText,
      index: nameIndex,
    });
    // The short name ("Acme") is a defined term, the contract's own wording: not a value, but
    // it still tells whose signature block a heading opens.
    if (short && short.text !== nameText) party.nickname ??= short.text;
  };

  lines.forEach((line, lineNumber) => {
    const inPreamble = lineNumber < preambleEnd;
    let definedHere = 0;
    for (const definition of definitionsIn(line.text)) {
      if (definition.group) continue;
      const start = partyStretchStart(line.text, definition.open);
      const stretch = line.text.slice(start, definition.open);
      const name = nameAt(stretch) ?? entityBefore(stretch);
      if (!name) continue;
      const lastWord = name.text.split(/\s+/).at(-1)!.toLowerCase();
      if (NOT_PARTY_WORDS.has(lastWord)) continue;
      if (definition.terms.some((t) => t.text === name.text)) continue;
      if (!name.entity && !(inPreamble && name.words <= 6)) continue;
      addParty(name.text, line.index + start + name.start, definition);
      definedHere += 1;
    }
    if (inPreamble && definedHere === 0) {
      for (const listed of listedParties(line)) addParty(listed.text, listed.index, null);
    }
  });
  return { parties, candidates };
}

/** "… between Globex Corporation and Initech GmbH.": the names after "between" or "among". */
function listedParties(line: Span): Span[] {
  const keyword = /\b(?:between|among)\s/i.exec(line.text);
  if (!keyword) return [];
  const found: Span[] = [];
  let from = keyword.index + keyword[0].length;
  for (let parts = 0; parts < 6 && from < line.text.length; parts += 1) {
    const nextAnd = line.text.slice(from).search(/,?\s(?:and|&)\s/);
    const end = nextAnd < 0 ? line.text.length : from + nextAnd;
    const name = nameAt(line.text.slice(from, end));
    if (name && (name.entity || (name.words >= 2 && name.words <= 4))) {
      const lastWord = name.text.split(/\s+/).at(-1)!.toLowerCase();
      if (!NOT_PARTY_WORDS.has(lastWord))
        found.push({ text: name.text, index: line.index + from + name.start });
    }
    if (nextAnd < 0) break;
    from = end + line.text.slice(end).match(/^,?\s(?:and|&)\s/)![0].length;
  }
  return found;
}
