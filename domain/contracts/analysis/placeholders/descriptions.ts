/**
 * Whether a text in brackets (`[…]`, or `{…}` in templates that write descriptions in braces)
 * describes what goes in a blank, or is something else in brackets: a citation, an editorial
 * note, an optional clause, code. The word lists were measured on the corpus of
 * test/fixtures/contracts-corpus (bench:import) and on published templates' conventions.
 */
import { INSTRUCTION_VERBS } from './names.ts';

const MAX_DESCRIPTION_WORDS = 60;

/** Notes to the reader, not blanks: `[Reserved]`, `[Signature page follows]`, `[sic]`, `[Note: …]`. */
const EDITORIAL =
  /^(?:reserved\b|intentionally\b|omitted\b|deleted\b|redacted\b|sic\b|signature pages?\b|signatures? follows?\b|remainder of\b|(?:this )?page (?:is )?intentionally\b|end of (?:document|page|exhibit|schedule|agreement)\b|continued\b|emphasis\b|(?:corporate )?seal$|l\.?s\.?$|page break$|footnote\b|drafting note\b|notes? to (?:draft|drafter|the drafter)\b|ntd\b|notes?:|comments?:|guidance\b|instructions?:|optional:?$|alternatives?(?: [a-z0-9]+)?:?$|options? [a-z0-9]+:?$|if applicable$|\*+$|(?:exhibit|schedule|annex|appendix) [a-z0-9]+ follows|(?:company )?logo$|(?:[a-z]+ ){0,3}(?:omitted|redacted|deleted|removed)$|confidential (?:treatment|portion))/i;

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
export function isDescription(content: string): boolean {
  // `["a", "b"]`, `[1]`, `[{…}]`, `[^1]`: code, citations, footnotes.
  if (!/^\p{L}/u.test(content.replace(/^\$/, ''))) return false;
  if (/^[xX✓✔]$/.test(content) || /^[ivxlc]+$/.test(content) || content.length < 2) return false;
  if (/[{}<>=\\]/.test(content)) return false; // code or markup
  // One participle (`[Abbreviated]`, `[Amended]`) notes what was done to the text; a name is a noun.
  if (EDITORIAL.test(content) || /^\p{L}+ed$/u.test(content)) return false;
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
