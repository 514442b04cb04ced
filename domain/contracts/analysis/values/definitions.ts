/**
 * How a contract defines its parties: a parenthesised definition after a name (`TechCo Inc. (the
 * "Provider")`, `(hereinafter "Acme" or the "Company")`) as American drafting does, and a
 * definitions clause's "X means Y" as English drafting does.
 */
import { toSnakeCase } from '../placeholders.ts';
import type { Candidate } from './candidate.ts';
import { namesInstitution } from './institutions.ts';
import type { Span } from './lines.ts';
import { nameAt } from './names.ts';

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

/** The quoted terms of a parenthesis's inside (each at most 60 characters), and the words around them. */
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
  const after = inside.slice(from);
  // A term's gloss after it ("(hereinafter the "Company", a term which includes the Company's
  // successors and assigns)", "(the "Company" which for purposes of this Agreement shall include
  // its subsidiaries)"): drafters define a party and, in the same parenthesis, say what the term
  // also covers; the gloss is no connecting word of the definition.
  if (terms.length > 0 && GLOSS.test(after)) return { terms, rest: rest.trim() };
  return { terms, rest: `${rest} ${after}`.trim() };
}
/** What opens a term's gloss: ", a term which", ", which", "which", ", including", ", and its". */
const GLOSS = /^,?\s(?:a term (?:which|that)|which|that|including|includes|and its)\s/i;
const GROUP = /\b(?:each|collectively|together|individually|jointly|both|respectively)\b/i;
/** Words that make a definition's subject a document or a date, never a party. */
export const NOT_PARTY_WORDS = new Set(
  'agreement contract date schedule exhibit order form terms term period territory premises fee fees price law act policy plan information services products software'.split(
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
export function isShortName(term: string, name: string): boolean {
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

const MEANS = /^["“]?(\p{Lu}[\p{L}-]{0,30}(?: \p{Lu}[\p{L}-]{0,30}){0,3})["”]? means /u;
const UK_DESCRIPTOR =
  /^,\s(?:an?|the)\s(?:registered charity|charity|charitable|company|private company|public company|limited company|community interest company|body corporate|statutory)\b/i;
const PERSON_AFTER = /^(?:,?\s(?:who|whose)\s|,\san\sindividual\b)/;

/**
 * A definitions clause's entry that names a party or a person: "Grantor means The Calder Valley
 * Charitable Trust, a registered charity …", "Community Representative means Thomas J. Whitaker III
 * who is …". English contracts define their parties and people in the definitions clause ("X
 * means Y"), as American ones define them in the preamble's parentheses. The term is the name's
 * role; the name is an organization's when a legal form, an institution's head noun or a
 * descriptor after it ("a registered charity", "a company limited by guarantee") says so, and a
 * person's when "who" or "an individual" follows it.
 */
export function meansDefinition(line: Span): Candidate[] {
  const m = MEANS.exec(line.text);
  if (!m) return [];
  const at = m[0].length;
  const rest = line.text.slice(at, at + 200);
  // "The Calder Valley Charitable Trust": a body registered with "The" in its name.
  const the = /^The /.test(rest) ? 4 : 0;
  const name = nameAt(rest.slice(the));
  if (name?.start !== 0) return [];
  const after = rest.slice(the + name.text.length);
  const institution = namesInstitution(name.text);
  const organization = name.entity || (name.words >= 2 && (institution || UK_DESCRIPTOR.test(after)));
  const person = !organization && !the && name.words >= 2 && name.words <= 5 && PERSON_AFTER.test(after);
  if (!organization && !person) return [];
  const text = the && organization ? rest.slice(0, the + name.text.length) : name.text;
  return [
    {
      type: organization ? 'party' : 'value',
      name: toSnakeCase(m[1]!),
      named: true,
      text,
      index: line.index + at + (text === name.text ? the : 0),
    },
  ];
}
