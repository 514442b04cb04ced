/**
 * Organizations named without a legal form, wherever they stand: universities, institutes,
 * foundations, agencies, departments ("Northvale Medical University", "Royal Caldera Institute of
 * Technology", "Centre for Brain Imaging Research", "U.S. Small Business Administration",
 * "Institut Valmont de recherche biomédicale"). A public body, a university or a charity is not
 * incorporated under a company's form: it is named by the kind of body it is, its head noun, with
 * proper words before it or after "of"/"for" (English), "de" (French) or "für" (German). What it
 * IS tells it, not where it stands: a preamble, a cell, a sentence of a data-use agreement.
 *
 * Not: a kind of body ("the Foundation", "a Government Agency", "the Requesting Agency"), a
 * longer compound the head noun only qualifies ("Foundation Board", "University Policy"), a
 * defined term, a party's own term. Each head noun is read with at most 8 words on either side,
 * so a line of many stays linear.
 */
import type { Candidate } from './candidate.ts';
import type { Span } from './lines.ts';
import type { Party } from './parties.ts';

/**
 * The head nouns of bodies that contract in their own name without a legal form: universities and
 * their units, research institutes, hospitals, schools, charities and learned societies (English,
 * French and German spellings). Not a government's departments, agencies, commissions and
 * authorities: a contract's wording names those as the regulators its clauses defer to ("filed
 * with the Securities and Exchange Commission", "the U.S. Department of Commerce's export rules"),
 * and where one is a party the preamble defines it (values/parties.ts).
 */
const HEADS = new Set(
  (
    'university institute centre center hospital college school academy foundation society ' +
    'association museum library laboratory laboratories ' +
    'université institut unité laboratoire école fondation hôpital ' +
    'universität stiftung klinikum hochschule akademie zentrum'
  ).split(' '),
);
/** Words a name's words are read up to, on either side of the head noun. */
const MAX_SIDE_WORDS = 8;
/** What joins a head noun to the proper words after it. */
const ENGLISH_JOINS = new Set(['of', 'for', 'on']);
const FRENCH_JOINS = new Set(['de', 'des', 'du', "d'", 'd’']);
const GERMAN_JOINS = new Set(['für']);
/** Inside the words after a join: "Department of Health and Human Services", "Institute of Arts & Sciences". */
const INNER = new Set(['and', '&', 'of', 'the', 'for', 'et', 'de', 'des', 'du', 'la', 'le', 'und', 'der']);
/** French heads, whose names go on in lower case after "de" ("Unité de neuroimagerie clinique"). */
const FRENCH_HEADS = new Set([
  'université',
  'institut',
  'unité',
  'centre',
  'laboratoire',
  'école',
  'fondation',
  'département',
  'hôpital',
]);
/**
 * French and German heads (no English word is spelled so), which put the proper name after them:
 * "Institut Valmont", "Université Laval", "Universität Hamburg", "Stiftung Warentest".
 */
const NAME_AFTER_HEADS = new Set([
  'université',
  'institut',
  'unité',
  'laboratoire',
  'école',
  'fondation',
  'département',
  'hôpital',
  'universität',
  'stiftung',
  'klinikum',
  'hochschule',
  'akademie',
  'zentrum',
]);
/** French words that end a name's lower-case tail: articles, prepositions, conjunctions, pronouns. */
const FRENCH_STOPS = new Set(
  'à au aux avec dans en et est faisant le la les leur par pour qui que quand sur sous un une ou ci ce cet cette son sa ses établi établie situé située'.split(
    ' ',
  ),
);
/**
 * Words that make a name a kind of body, whatever its head: an institution's name has at least one
 * word that is none of these ("the Sponsoring Agency", "any Federal Agency", "a Charitable Trust").
 */
const GENERIC = new Set(
  (
    'the a an any each such every other this that these those its their our your his her no ' +
    'federal national state states government governmental public private local regional municipal ' +
    'regulatory relevant applicable competent appropriate responsible foreign domestic international ' +
    'independent accredited recognized recognised qualified designated sponsoring participating ' +
    'requesting providing receiving host partner member affiliated parent lead home research ' +
    'educational academic charitable nonprofit non-profit medical legal tax taxing administrative ' +
    'executive financial data health human central general new same said respective certain ' +
    'grant granting funding fiscal sponsor sponsored community project program programme board ' +
    'directors committee staff user users group office town city county village district borough parish'
  ).split(' '),
);
/** Sentence openers and role words a name does not start with. */
const NOT_START = new Set(
  'this the that these such each any all its their his her our your my a an in on by for with to as if upon whereas now between among and or of at from'.split(
    ' ',
  ),
);

/** An abbreviation of initials with full stops, inside a name: "U.S.", "U.K.". */
const INITIALISM = /^(?:\p{Lu}\.){2,}$/u;

interface Token {
  text: string;
  start: number;
}

/** `word` without the punctuation at its end (a loop: a pattern like `[,;]+$` is quadratic). */
function bare(word: string): string {
  let end = word.length;
  while (end > 0 && ',;:.)"”’\''.includes(word[end - 1]!)) end -= 1;
  return word.slice(0, end);
}

const titleCase = (word: string) => /^\p{Lu}[\p{Ll}’'-]/u.test(word) || /^\p{Lu}$/u.test(word);
/** A word of a name before its head: "Northvale", "MIT", "U.S." (not "<Department>"). */
const NAME_WORD = /^(?:\p{Lu}[\p{L}’'-]*|(?:\p{Lu}\.){2,})$/u;

export function institutionsIn(
  line: Span,
  parties: readonly Party[],
  definedTerms: ReadonlySet<string> = new Set(),
): Candidate[] {
  const found: Candidate[] = [];
  const tokens: Token[] = [];
  for (const m of line.text.matchAll(/\S+/g)) tokens.push({ text: m[0], start: m.index });
  // Two words are one name's only when a single space stands between them (a tab parts cells).
  const joined = (a: number, b: number) => {
    const gap = line.text.slice(tokens[a]!.start + tokens[a]!.text.length, tokens[b]!.start);
    return gap === ' ';
  };
  // Tokens before `floor` belong to a name read already (or to two names run together).
  let floor = 0;
  for (let h = 0; h < tokens.length; h += 1) {
    const head = bare(tokens[h]!.text);
    const lowerHead = head.toLowerCase();
    if (!HEADS.has(lowerHead) || !titleCase(head)) continue;
    // The head noun ends its word (no punctuation inside), or ends the name with a comma/full stop.
    const headEnds = head !== tokens[h]!.text;
    // Left: proper words before the head ("Northvale Medical", "U.S. Small Business").
    let first = h;
    while (first > floor && h - first < MAX_SIDE_WORDS && joined(first - 1, first)) {
      const word = tokens[first - 1]!.text;
      if (!NAME_WORD.test(word)) break;
      if (NOT_START.has(word.toLowerCase()) || definedTerms.has(word.toLowerCase())) break;
      first -= 1;
    }
    // "Securities and Exchange Commission", "Smith and Jones College": one name or two listed,
    // which the words do not tell.
    const before = tokens[first - 1]?.text;
    if ((before === 'and' || before === '&') && first >= 2 && NAME_WORD.test(tokens[first - 2]!.text))
      continue;
    // Right: "of"/"for"/"de"/"für" and the proper words after it.
    let last = h;
    const next = tokens[h + 1];
    if (!headEnds && next && joined(h, h + 1)) {
      const join = next.text.toLowerCase();
      const french = FRENCH_HEADS.has(lowerHead) && FRENCH_JOINS.has(join);
      if (ENGLISH_JOINS.has(join) || GERMAN_JOINS.has(join) || french) {
        last = rightEnd(tokens, h + 1, french, joined);
      } else if (NAME_AFTER_HEADS.has(lowerHead) && titleCase(next.text)) {
        // "Institut Valmont de recherche biomédicale": the proper name, then maybe its "de …".
        last = h;
        while (last + 1 < tokens.length && last - h < MAX_SIDE_WORDS && joined(last, last + 1)) {
          const word = tokens[last + 1]!.text;
          if (!titleCase(bare(word))) break;
          last += 1;
          if (bare(word) !== word) break;
        }
        const join2 = tokens[last + 1];
        if (bare(tokens[last]!.text) === tokens[last]!.text && join2 && joined(last, last + 1)) {
          const j = join2.text.toLowerCase();
          const fr = FRENCH_HEADS.has(lowerHead) && FRENCH_JOINS.has(j);
          if (fr || GERMAN_JOINS.has(j)) last = Math.max(last, rightEnd(tokens, last + 1, fr, joined));
        }
      } else if (titleCase(next.text) || /^\p{Lu}{2,}/u.test(next.text)) {
        // "Foundation Board", "University Policy", "Agency Agreement": the head noun qualifies a
        // longer compound (or a heading), it does not end a name.
        continue;
      }
    }
    // "Centre for Brain Imaging Research Northvale Medical University": two names run together
    // (another head in the tail), where neither's bounds can be told.
    let second = -1;
    for (let i = h + 2; i <= last && second < 0; i += 1)
      if (HEADS.has(bare(tokens[i]!.text).toLowerCase())) second = i;
    if (second > 0) {
      floor = second + 1;
      h = second;
      continue;
    }
    const words = tokens
      .slice(first, last + 1)
      .map((t, i, all) => (i === all.length - 1 ? bare(t.text) : t.text));
    if (words.length < 2) continue;
    const proper = words.filter((w) => {
      const lower = bare(w).toLowerCase();
      return !GENERIC.has(lower) && !HEADS.has(lower) && !INNER.has(lower) && /\p{L}/u.test(w);
    });
    if (proper.length === 0) continue;
    const text = words.join(' ');
    const lower = text.toLowerCase();
    if (
      definedTerms.has(lower) ||
      parties.some((p) => p.term?.toLowerCase() === lower || p.nickname?.toLowerCase() === lower)
    )
      continue;
    // "Thank you for your interest in X Foundation": a form in plain language speaks to its reader
    // as "you" and of its issuer by name, the same on every copy (values/spans.ts, readerAt).
    if (speaksToReader(line.text, tokens[first]!.start, tokens[last]!.start)) continue;
    // "The Apache Software Foundation": a body registered with "The" in its name is the party the
    // preamble named so, wherever the article is written.
    const article = /^the$/i.test(tokens[first - 1]?.text ?? '') && joined(first - 1, first);
    const withThe = parties.find((p) => article && p.name.toLowerCase() === `the ${lower}`);
    const party = withThe ?? parties.find((p) => p.name.toLowerCase() === lower);
    const start = tokens[withThe ? first - 1 : first]!.start;
    const end = tokens[first]!.start + text.length;
    found.push({
      type: 'party',
      name: party ? `${party.role}_name` : 'organization_name',
      named: party !== undefined,
      text: line.text.slice(start, end),
      index: line.index + start,
    });
    h = last;
    floor = last + 1;
  }
  return found;
}

/**
 * The last token of the words after a head's join at `join`: capitalised words (with "and", "of",
 * "&" between them), or, after a French head's "de", the lower-case words of a French name up to a
 * function word. −1 words taken: the head alone ends the name.
 */
function rightEnd(
  tokens: readonly Token[],
  join: number,
  french: boolean,
  joined: (a: number, b: number) => boolean,
): number {
  let last = join - 1;
  for (let i = join + 1; i < tokens.length && i - join <= MAX_SIDE_WORDS && joined(i - 1, i); i += 1) {
    const word = tokens[i]!.text;
    const b = bare(word);
    const lower = b.toLowerCase();
    if (INNER.has(lower) && b === word) {
      // A joining word inside the name only when a proper word follows it.
      continue;
    }
    const proper =
      titleCase(b) || INITIALISM.test(b) || (french && /^\p{Ll}/u.test(b) && !FRENCH_STOPS.has(lower));
    if (!proper || b.length === 0) break;
    last = i;
    if (b !== word) break;
  }
  return last;
}

/** How far a sentence is read on either side of a name. */
const SENTENCE_WINDOW = 300;

/**
 * Whether the sentence around `start`..`end` addresses the reader ("you", "your"): read from the
 * last full stop before it to the next after it, at most `SENTENCE_WINDOW` characters each way.
 */
function speaksToReader(text: string, start: number, end: number): boolean {
  const from = Math.max(0, start - SENTENCE_WINDOW);
  const before = text.slice(from, start);
  const stop = before.lastIndexOf('. ');
  const after = text.slice(end, end + SENTENCE_WINDOW);
  const next = after.indexOf('. ');
  const sentence = `${before.slice(stop + 1)} ${next < 0 ? after : after.slice(0, next)}`;
  return /\b(?:you|your|yours)\b/i.test(sentence);
}
