import anyAscii from 'any-ascii';
/** `Company Name`, `companyName`, `Company-Name` → `company_name`. */
export function toSnakeCase(raw: string): string {
  // Names are ASCII, for every template engine: "société" → "societe", "покупатель" → "pokupatel".
  const name = anyAscii(raw)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, '_')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 64)
    .replace(/^_|_$/g, '');
  return name;
}

/**
 * A name a person could use: a letter first, at least two characters (`{x}` and `[1]` name
 * nothing). Its length is bounded where it comes from: an identifier as written, a label of at
 * most MAX_LABEL characters, a description's five words.
 */
export function isPlausibleName(name: string): boolean {
  return /^[a-z]/.test(name) && name.length >= 2;
}

/**
 * Words that tell a reader what to do rather than what goes there (`[Insert date]`). Not `state`,
 * `list` or `type`, which more often head a noun phrase (`State of incorporation`).
 */
export const INSTRUCTION_VERBS = new Set([
  'insert',
  'enter',
  'specify',
  'describe',
  'include',
  'add',
  'provide',
  'identify',
  'indicate',
  'fill',
  'select',
  'choose',
  'complete',
  'attach',
  'write',
]);

/** Head nouns too general to name a blank alone (`Date` by which the offer must be accepted). */
const GENERAL_HEADS = new Set([
  'date',
  'name',
  'amount',
  'number',
  'address',
  'title',
  'reference',
  'description',
  'details',
  'value',
  'type',
  'period',
  'time',
  'place',
  'list',
  'percentage',
  'price',
  'fee',
  'sum',
  'rate',
  'day',
  'deadline',
]);

/** Words a short name leaves out: articles, possessives, auxiliaries, relative words. */
export const FILLER = new Set([
  'a',
  'an',
  'the',
  'any',
  'each',
  'such',
  'this',
  'that',
  'these',
  'those',
  'its',
  'his',
  'her',
  'their',
  'our',
  'your',
  'my',
  'is',
  'are',
  'be',
  'been',
  'being',
  'was',
  'were',
  'will',
  'shall',
  'must',
  'may',
  'can',
  'should',
  'would',
  'could',
  'which',
  'who',
  'whom',
  'whose',
  'here',
  'in',
  'on',
  'at',
  'by',
  'for',
  'to',
  'from',
  'with',
  'of',
  'and',
  'or',
  'if',
  'applicable',
]);

/** Words after which the head noun phrase of a description is over (`Date | by which …`). */
const PHRASE_END = new Set([
  'by',
  'for',
  'to',
  'in',
  'on',
  'at',
  'with',
  'from',
  'under',
  'within',
  'between',
  'after',
  'before',
  'upon',
  'per',
  'via',
  'who',
  'which',
  'that',
  'whose',
  'where',
  'when',
  'if',
  'whether',
  'as',
  'than',
  'and',
  'or',
]);

const MAX_NAME_WORDS = 5;

/**
 * A short, stable name for a bracketed description, as a person preparing the template would
 * choose it. The rule, applied to the words of the description:
 * 1. leave out what only illustrates: parentheses (`(for example, "…")`), quoted text, and what
 *    follows `;`, `:`, a dash, `e.g.`, `i.e.` or `such as`;
 * 2. leave out a leading instruction (`Insert`, `Describe`, `Enter` …) and possessive `'s`;
 * 3. keep the head noun phrase: the words before the first preposition (other than `of`),
 *    relative word or conjunction, or before an `-ing` word after the second word that a
 *    preposition or article follows (`Full name of the authorized signatory | signing for the
 *    employer`);
 * 4. `A of B` reads `B A` (`name of the employer` → `employer_name`), as field names are
 *    written, except `number of …`, which reads as it stands;
 * 5. a head that is one general word (`Date by which the offer must be accepted`) takes the
 *    next content words after it, first (`offer_accepted_date`);
 * 6. articles, auxiliaries and other filler words go, and at most five words remain.
 * `[Full name of the authorized signatory signing for the employer]` → `authorized_signatory_full_name`.
 */
export function descriptionName(description: string): string {
  const words = descriptionWords(description);
  if (words.length > 0 && INSTRUCTION_VERBS.has(words[0]!)) {
    words.shift();
    if (words[0] === 'in' || words[0] === 'here') words.shift(); // "fill in", "insert here"
  }
  // An `-ing` word starts a participle phrase (`signing for the employer`) when a preposition or
  // article follows it; otherwise it describes the noun (`shares outstanding pre-money`).
  const participle = (word: string, i: number) =>
    i >= 2 && word.endsWith('ing') && (PHRASE_END.has(words[i + 1] ?? '') || FILLER.has(words[i + 1] ?? ''));
  let end = words.findIndex((word, i) => PHRASE_END.has(word) || participle(word, i));
  if (end < 0) end = words.length;
  let head = words.slice(0, end).filter((word) => !FILLER.has(word) || word === 'of');
  const of = head.indexOf('of');
  if (of > 0) {
    const [before, after] = [head.slice(0, of), head.slice(of + 1)];
    head =
      before.length === 1 && before[0] === 'number' ? [...before, 'of', ...after] : [...after, ...before];
  }
  let chosen = head.filter((word) => word !== 'of' || head[0] === 'number');
  if (chosen.length <= 1 && GENERAL_HEADS.has(chosen[0] ?? '')) {
    // Participles (`existing`, `signing`) describe; the nouns after the head say what it is.
    const rest = words
      .slice(end)
      .filter((word) => !FILLER.has(word) && !PHRASE_END.has(word) && !word.endsWith('ing'));
    chosen = [...rest.slice(0, MAX_NAME_WORDS - chosen.length), ...chosen];
  }
  return toSnakeCase(chosen.slice(0, MAX_NAME_WORDS).join(' '));
}

/** The description's words, lower case, without what only illustrates it (rule 1 and 2 above). */
function descriptionWords(description: string): string[] {
  let kept = '';
  let depth = 0;
  let quote = '';
  for (const char of description) {
    if (quote) {
      if (char === quote) quote = '';
      continue;
    }
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (depth > 0) continue;
    else if (char === '"' || char === '“') quote = char === '“' ? '”' : '"';
    else if (char === ';' || char === ':' || char === '—' || char === '–') break;
    else kept += char;
  }
  const tail = kept.search(/\b(?:e\.g\.|i\.e\.|such as|for example)/i);
  if (tail >= 0) kept = kept.slice(0, tail);
  return kept
    .replace(/['’]s\b/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/**
 * The name of a blank no label names: the unit after it (`within [●] days` → `days`), or else
 * the last word before it that is no filler (`at a price of $[●] per share` → `price`).
 */
export function nameAround(text: string, start: number, end: number): string {
  const next = /^[ %]*(\p{L}+)/u.exec(text.slice(end, end + 40))?.[1] ?? '';
  const from = Math.max(0, start - 60);
  const words = text.slice(from, start).split(/[^\p{L}]+/u);
  // A word the window cuts into is no word of its own ("…roject").
  if (from > 0 && /\p{L}/u.test(text[from - 1]!)) words.shift();
  const previous = words.filter((word) => word && !FILLER.has(word.toLowerCase())).at(-1);
  return toSnakeCase(UNIT_WORDS.test(next) ? next : (previous ?? next));
}

/** Words after a blank that say what it counts: `[●] days`, `[●] shares`. */
const UNIT_WORDS =
  /^(?:days?|weeks?|months?|years?|hours?|business|calendar|shares?|percent|dollars?|euros?|units?|times|installments?)$/i;
