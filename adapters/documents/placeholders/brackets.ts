import type { Finding } from '../findings.ts';
import { labelBefore } from './blanks.ts';
import { descriptionName, FILLER, INSTRUCTION_VERBS, isPlausibleName, toSnakeCase } from './names.ts';

/**
 * Square brackets: `[Company Name]`, a description of any length (`[Full name of the authorized
 * signatory signing for the employer]`, `[Reference to … (for example, "…")]`, nested
 * parentheses, quotes and brackets inside), and blanks (`[________]`, `[●]`, `[•]`, `$[___]`,
 * named by the label before them: `Purchase Price: $[_____]`).
 *
 * Not placeholders: citations (`[1]`), checkboxes (`[ ]`, `[x]`), links (`[text](url)`), an
 * index or an inflection (`items[0]`, `Party[ies]`), editorial notes (`[Reserved]`,
 * `[Intentionally omitted]`, `[Signature page follows]`, `[sic]`, `[Note to Draft: …]`),
 * optional clauses (`[The Company shall …]`, see `isOptionalClause`), JSON and code.
 *
 * Brackets are paired in one pass with a stack (each `]` closes the innermost open `[`), so
 * nesting is followed in linear time whatever the input (a megabyte of `[[[[` included); an
 * outer pair that is no placeholder (an optional clause) still lets the placeholders inside it
 * be found, and a placeholder inside another one is dropped when the findings are merged.
 */
const MAX_BRACKET = 600;
const MAX_LINES = 3;
const MAX_DESCRIPTION_WORDS = 60;

export function scanBrackets(text: string): Finding[] {
  const found: Finding[] = [];
  for (const [open, close] of bracketPairs(text)) {
    const finding = readBracket(text, open, close);
    if (finding) found.push(finding);
  }
  return found;
}

/** `[start, end]` of every matched pair at most MAX_BRACKET long, in order of `end`. */
function bracketPairs(text: string): [number, number][] {
  const pairs: [number, number][] = [];
  const open: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === '[') open.push(at);
    else if (char === ']' && open.length > 0) {
      const start = open.pop()!;
      if (at - start <= MAX_BRACKET) pairs.push([start, at]);
    }
  }
  return pairs;
}

function readBracket(text: string, open: number, close: number): Finding | null {
  const before = text[open - 1] ?? '';
  const after = text[close + 1] ?? '';
  // `items[0]`, `Party[ies]`, `[text](url)`: an index, an inflection, a link.
  if (/[\w\])]/.test(before) || after === '(') return null;
  const raw = text.slice(open + 1, close);
  if (raw.split('\n').length > MAX_LINES) return null;
  const content = raw.replace(/\s+/g, ' ').trim();
  if (isBlank(content)) {
    const start = before === '$' || before === '€' || before === '£' ? open - 1 : open;
    return blankFinding(text, start, close + 1);
  }
  if (!isDescription(content)) return null;
  const name = descriptionName(content);
  if (!name || !isPlausibleName(name)) return null;
  return { index: open, name, kind: 'placeholder', text: text.slice(open, close + 1) };
}

/** `[________]`, `[●]`, `[•]`, `[…]`, `[$____]`, `[__%]`, `[TBD]`, `[XX]`: a blank to fill. */
function isBlank(content: string): boolean {
  if (/^(?:TBD|TBC|TBA|XX+)$/i.test(content)) return true;
  return /^[$€£]?[ _●•·….-]*%?$/.test(content) && /_|●|•|·|…|\.\.\./.test(content);
}

/**
 * A blank named by its label (`Purchase Price: $[_____]` → `purchase_price`), or else by the
 * unit after it (`within [●] days` → `days`), or else by the last word before it that is no
 * filler (`at a price of $[●] per share` → `price`). Its text is then the blank alone: the same
 * blank elsewhere is the same variable, as the text cannot tell them apart.
 */
function blankFinding(text: string, start: number, end: number): Finding | null {
  const label = labelBefore(text, start, Math.max(0, start - 200));
  if (label)
    return { index: label.index, name: label.name, kind: 'placeholder', text: text.slice(label.index, end) };
  const next = /^[ %]*([A-Za-z]+)/.exec(text.slice(end, end + 40))?.[1] ?? '';
  const previous = text
    .slice(Math.max(0, start - 60), start)
    .split(/[^A-Za-z]+/)
    .filter((word) => word && !FILLER.has(word.toLowerCase()))
    .at(-1);
  const name = toSnakeCase(UNIT_WORDS.test(next) ? next : (previous ?? next));
  if (!isPlausibleName(name)) return null;
  return { index: start, name, kind: 'placeholder', text: text.slice(start, end) };
}

/** Words after a blank that say what it counts: `[●] days`, `[●] shares`. */
const UNIT_WORDS =
  /^(?:days?|weeks?|months?|years?|hours?|business|calendar|shares?|percent|dollars?|euros?|units?|times|installments?)$/i;

/** Notes to the reader, not blanks: `[Reserved]`, `[Signature page follows]`, `[sic]`, `[Note: …]`. */
const EDITORIAL =
  /^(?:reserved|intentionally|omitted|deleted|redacted|sic|signature pages?\b|signatures? follows?|remainder of|(?:this )?page (?:is )?intentionally|end of|continued|emphasis|seal|l\.?s\.?$|corporate seal|page break|footnote|drafting note|notes? to (?:draft|drafter|the drafter)|ntd\b|note\b|comment\b|guidance\b|instructions?\b|optional\b|alternatives?\b|option\b|if applicable$|\*+$|exhibit [a-z0-9]+ follows|schedule [a-z0-9]+ follows|logo)/i;

/** Words that begin a clause's continuation rather than a description: `[, provided that …]`, `[and/or]`. */
const CONNECTIVES = new Set([
  'and',
  'or',
  'and/or',
  'but',
  'nor',
  'provided',
  'including',
  'except',
  'plus',
  'unless',
  'which',
  'who',
  'whether',
  'so',
  'then',
  'than',
  'however',
]);

/** Verbs that make a bracketed text a sentence (an optional clause) rather than a description. */
const FINITE_VERBS = new Set([
  'shall',
  'will',
  'may',
  'must',
  'agrees',
  'agree',
  'acknowledges',
  'acknowledge',
  'represents',
  'warrants',
  'covenants',
  'undertakes',
  'is',
  'are',
  'was',
  'were',
  'has',
  'have',
  'does',
  'hereby',
  'means',
  'constitutes',
  'should',
  'would',
  'can',
  'cannot',
]);

/** Words a description of a blank starts with: what goes there. */
const DESCRIPTION_HEADS = new Set([
  'name',
  'names',
  'full',
  'legal',
  'date',
  'dates',
  'amount',
  'number',
  'address',
  'title',
  'description',
  'reference',
  'details',
  'list',
  'type',
  'percentage',
  'price',
  'fee',
  'fees',
  'term',
  'period',
  'jurisdiction',
  'county',
  'city',
  'country',
  'email',
  'e-mail',
  'phone',
  'telephone',
  'value',
  'sum',
  'rate',
  'brief',
  'company',
  'party',
  'state',
]);

/**
 * Whether a bracket's content describes what goes in a blank: a name (`Company Name`), an
 * instruction (`Insert date`, `Describe the Services`), a noun phrase of any length (`Date by
 * which the offer must be accepted`), rather than something else in brackets.
 */
function isDescription(content: string): boolean {
  // `["a", "b"]`, `[1]`, `[{…}]`, `[^1]`: code, citations, footnotes.
  if (!/^[A-Za-z]/.test(content.replace(/^\$/, ''))) return false;
  if (/^[xX✓✔]$/.test(content) || /^[ivxlc]+$/.test(content) || content.length < 2) return false;
  if (/[{}<>=\\]/.test(content)) return false; // code or markup
  // One participle (`[Abbreviated]`, `[Amended]`) notes what was done to the text; a name is a noun.
  if (EDITORIAL.test(content) || /^[A-Za-z]+ed$/.test(content)) return false;
  const words = content.split(' ');
  if (words.length > MAX_DESCRIPTION_WORDS) return false;
  const first = words[0]!.toLowerCase().replace(/[^a-z/-]/g, '');
  if (INSTRUCTION_VERBS.has(first) || /_{2,}|●|•/.test(content)) return true;
  if (CONNECTIVES.has(first)) return false;
  return !isOptionalClause(words, first);
}

/**
 * An optional clause is ordinary contract text in brackets, kept or struck as the parties
 * choose: `[The Company shall reimburse the Employee's expenses.]`. It is a sentence: it has a
 * finite or modal verb (`shall`, `will`, `is`, `agrees` …) and ends with a full stop (or `;`,
 * `:`), or runs on (twelve words or more) without starting with a description's head word
 * (`Name`, `Date`, `Amount` …). A description names what goes in the blank, a noun phrase that
 * may carry a verb in a relative clause (`Date by which the offer must be accepted`) but is no
 * sentence of its own.
 */
function isOptionalClause(words: readonly string[], first: string): boolean {
  const hasVerb = words.some((word) => FINITE_VERBS.has(word.toLowerCase().replace(/[^a-z]/g, '')));
  if (!hasVerb) return false;
  const last = words.at(-1)!;
  const endsSentence = /[.;:!?]["'”’)\]]*$/.test(last) && !ABBREVIATION.test(last);
  if (endsSentence) return true;
  return words.length >= 12 && !DESCRIPTION_HEADS.has(first);
}

/** `Inc.`, `Ltd.`, `Co.`: a full stop that ends a name, not a sentence. */
const ABBREVIATION = /^(?:inc|ltd|co|corp|llc|l\.l\.c|jr|sr|no|esq|plc|n\.a|u\.s|s\.a|b\.v|p\.c)\.$/i;
