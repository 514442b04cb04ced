/**
 * The name a party goes by, read off the words that start a stretch of text: capitalised words
 * (with "&", "of", "de", "van", …, between them) and a legal-entity suffix after a comma
 * ("Acme, Inc."), stopping at the descriptor that follows (", a Delaware corporation").
 */
import { INSTITUTION_HEADS } from './institutions.ts';

/** Legal-entity suffixes, lower case without trailing comma. */
const ENTITY_SUFFIX_LIST = (
  'inc. inc incorporated llc l.l.c. ltd. ltd limited corp. corp corporation co. company lp l.p. llp ' +
  'l.l.p. lllp plc p.l.c. gmbh ag s.a. sa n.v. nv b.v. bv pbc p.c. pc pty pty. s.a.s. sas s.r.l. srl ' +
  's.p.a. spa oy ab a/s asa k.k. pte. pte ulc lda ltda s.l. sl kg se'
).split(' ');
/** Each suffix also without its final period ("IREYA B.V", "Acme S.A"). */
const ENTITY_SUFFIXES = new Set(ENTITY_SUFFIX_LIST.flatMap((s) => [s, s.replace(/\.$/, '')]));
// Not "and": it separates the parties ("between Acme Inc. and Beta LLC"). The particles of
// French, Spanish, Italian, Portuguese, Dutch and German names ("Soluciones Marítimas del
// Cantábrico S.L.", "Banca Popolare di Sondrio", "Caixa Geral de Depósitos", "Maria dos Santos").
const CONNECTORS = new Set(
  '& of for de du des da del della di do dos das van von der den ter ten zu la le y'.split(' '),
);
/** Capitalised words that open a sentence or a description, not a name. */
const NOT_NAMES = new Set(
  'this the that these such each any all its their his her our your a an in on by for with to as if upon whereas now'.split(
    ' ',
  ),
);

/**
 * The pronouns a contract uses as its parties' defined terms ("You", "We" or "Us"): a contributor
 * or licence agreement speaks to its reader and of its issuer so, and neither starts a name (as
 * written, so "US Bancorp" stays a name; "Your" and "Our" are in NOT_NAMES). A company named "We …"
 * is not read from its name alone.
 */
const PRONOUNS = new Set(['You', 'We', 'Us']);

const HONORIFICS = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'mx']);

export function isEntitySuffix(word: string): boolean {
  // "Inc.,", "S.p.A.;" and "Inc.." (a sentence's full stop after the suffix's) are the suffix too, and so is
  // "LLC." (the full stop of a sentence ending with a suffix written without one).
  const bare = word.toLowerCase().replace(/[,;]$/, '').replace(/\.\.$/, '.');
  return ENTITY_SUFFIXES.has(bare) || (bare.endsWith('.') && ENTITY_SUFFIXES.has(bare.slice(0, -1)));
}

/** The suffix as the name has it: "LLC." at a sentence's end is "LLC", "Inc." keeps its period. */
function suffixText(token: string): string {
  const text = withoutTrailing(token, ',;:').replace(/\.\.$/, '.');
  return text.endsWith('.') && !ENTITY_SUFFIXES.has(text.toLowerCase()) ? text.slice(0, -1) : text;
}

/**
 * A name written in lower case or with a capital inside it, as brands write themselves:
 * "theglobe.com", "eBay", "iGo". It names a party only before a legal-entity suffix
 * ("theglobe.com, inc."), where the suffix says it is a company's name.
 */
function isBrandWord(word: string): boolean {
  return (
    /^[a-z][a-z0-9-]{0,30}\.(?:com|net|org|io|ai|co)$/.test(word) ||
    /^[a-z]{1,3}[A-Z][A-Za-z]{1,20}$/.test(word)
  );
}

/**
 * A jurisdiction in parentheses inside an offshore company's name: "Altimo Holdings (BVI)
 * Limited", "Acme (Cayman) Ltd." (companies of the British Virgin Islands, the Cayman Islands and
 * Bermuda are often named so, to tell them from their group's other companies).
 */
const JURISDICTION_IN_NAME =
  /^\((?:BVI|B\.V\.I\.|Cayman|Bermuda|Jersey|Guernsey|Bahamas|UK|U\.K\.|USA|U\.S\.A\.|US|U\.S\.|Canada|Ireland|Singapore|Hong Kong|HK|Luxembourg|Netherlands|Cyprus|Mauritius)\)$/;

/** Sentence openers that end a name wherever they stand ("SPONSORSHIP AGREEMENT This agreement"). */
const NAME_ENDERS = new Set(['this', 'whereas', 'now', 'witnesseth', 'recitals']);

/**
 * "Eli Lilly and Company, an Indiana corporation", "Smith and Company (“Smith”)": a firm named
 * "<founders> and Company", as partnerships long were. `before` is the word before "and", `rest`
 * the text after it: "Company" or "Co." introduced as a party is (a comma and "a"/"an"/"the", or a
 * parenthesis, after it); "between Employee and Company" joins two defined terms.
 */
export function isAndCompany(before: string, rest: string): boolean {
  return (
    isCapitalised(before) &&
    !isEntitySuffix(before) &&
    !/[,;:)]$/.test(before) &&
    !NOT_NAMES.has(before.toLowerCase()) &&
    /^(?:Company|Co\.|COMPANY|CO\.)(?:,\s(?:an?|the)\s|\s\(|\s?$)/.test(rest)
  );
}

/**
 * "Saco River Telegraph and Telephone Company", "Offshore and Marine Holdings LLC": an "and"
 * between two capitalised words inside one name, when capitalised words after it run on to a
 * legal-entity suffix (companies are registered under names joining two trades or two places so;
 * a suffix ends the registered name, and two parties are written with the first one's suffix,
 * descriptor or definition before their "and"). `before` is the word before "and".
 */
export function isInnerAnd(before: string, after: readonly { text: string }[]): boolean {
  return (
    isCapitalised(before) &&
    // "between U.S. Small Business Administration and Acme SAS": a public body's name ends with
    // its head noun, so an "and" after one separates two parties.
    !INSTITUTION_HEADS.has(before.toLowerCase()) &&
    !isEntitySuffix(before) &&
    !/[,;:).'"’”]$/.test(before) &&
    !NOT_NAMES.has(before.toLowerCase()) &&
    suffixAhead(after, 0, 3)
  );
}

/**
 * Whether an entity suffix ends the run of capitalised words starting at `tokens[from]` ("Pier
 * 1 Services Company": after its number, "Services Company").
 */
function suffixAhead(tokens: readonly { text: string }[], from: number, words = 5): boolean {
  for (let j = from; j < tokens.length && j < from + words + 1; j += 1) {
    const text = tokens[j]!.text;
    if (j > from && isEntitySuffix(text)) return true;
    if (!isCapitalised(withoutTrailing(text, ',')) || !/\p{L}/u.test(text)) return false;
    if (text.endsWith(',')) return tokens[j + 1] !== undefined && isEntitySuffix(tokens[j + 1]!.text);
  }
  return false;
}

/**
 * "Sears, Roebuck and Co.", "Bruckmann, Rosser, Sherrill & Co., Inc.": a firm named for its
 * founders lists their surnames, a comma after each but the last, before "& Co." or "and Co.".
 * Whether such a list, each surname one capitalised word, starts at `tokens[from]` and ends so
 * ("and Company" is left out: "between Buyer, Seller and Company" joins defined terms).
 */
export function foundersAhead(tokens: readonly { text: string }[], from: number): boolean {
  for (let j = from; j < tokens.length && j < from + 4; j += 1) {
    const text = tokens[j]!.text;
    if (/^\p{Lu}[\p{L}'’-]+,$/u.test(text)) continue;
    const joiner = tokens[j + 1]?.text;
    const firm = tokens[j + 2]?.text ?? '';
    return (
      /^\p{Lu}[\p{L}'’-]+$/u.test(text) &&
      ((joiner === '&' && /^(?:Co\.|Company)[,;]?$/.test(firm)) ||
        (joiner === 'and' && /^Co\.[,;]?$/.test(firm)))
    );
  }
  return false;
}

/** "Corporation of America", "Company of New York": a company named with its country or state. */
const NAMED_FOR_PLACE = /^(?:corporation|company)$/i;

export function isCapitalised(word: string): boolean {
  return /^[\p{Lu}0-9]/u.test(word) && /\p{L}/u.test(word);
}

/** `word` without the punctuation in `chars` at its end (a loop: a pattern like `[,;]+$` is quadratic). */
function withoutTrailing(word: string, chars: string): string {
  let end = word.length;
  while (end > 0 && chars.includes(word[end - 1]!)) end -= 1;
  return word.slice(0, end);
}

export interface NameRun {
  /** Offset of the name in the stretch given. */
  start: number;
  text: string;
  /** Ends with a legal-entity suffix: certainly an organization. */
  entity: boolean;
  words: number;
}

/** A legal form written out in words, as CIS companies' names open: "Closed Joint Stock Company". */
const FORM_IN_WORDS = /\b(?:joint stock|limited liability|additional liability) company$/i;

/**
 * The name in quotation marks that follows a legal form written out in words ("Open Joint Stock
 * Company “Vimpel-Communications”": a company of Russia or another CIS state is named by its form
 * and, in quotation marks, its name proper; Russia's Civil Code, art. 1473): how many characters
 * of `rest`, the text after the form, it takes (0: none).
 */
export function quotedNameAfter(form: string, rest: string): number {
  if (!FORM_IN_WORDS.test(form)) return 0;
  return /^ [“"«]\p{Lu}[^”"»\n]{0,60}[”"»]/u.exec(rest)?.[0].length ?? 0;
}

/** A generational suffix, as a person's name carries it after a comma: "Jr.", "Sr.", "II", "III", "IV". */
const GENERATION = /^(?:Jr\.|Sr\.|JR\.|SR\.|II|III|IV)[,;]?$/;

/** An initial or initials without their last period: "A", "J.H", "L.E.K". */
const INITIALS = /^[A-Z](?:\.[A-Z]){0,3}$/;

/**
 * The name at the start of `stretch` (leading white space skipped), or null. At most 12 words
 * are read.
 */
export function nameAt(stretch: string): NameRun | null {
  const start = stretch.length - stretch.trimStart().length;
  const tokens: { text: string; start: number }[] = [];
  const wordPattern = /\S+/g;
  wordPattern.lastIndex = start;
  for (let m = wordPattern.exec(stretch); m && tokens.length < 14; m = wordPattern.exec(stretch)) {
    tokens.push({ text: m[0], start: m.index });
  }
  let end = -1;
  let entity = false;
  let words = 0;
  let founders = false;
  for (let i = 0; i < tokens.length && words < 12; i += 1) {
    const token = tokens[i]!;
    const bare = withoutTrailing(token.text, ',;:.\'’"”');
    // "between The Travelers Companies, Inc., a Minnesota corporation": a company registered with
    // "The" in its name writes it with a capital, and a legal form ends the name; a signature
    // block writes the whole name in capitals ("THE COCA-COLA COMPANY" / "By: …").
    if (i === 0 && (token.text === 'The' || token.text === 'THE') && suffixAhead(tokens, 1)) continue;
    if (i === 0 && (NOT_NAMES.has(bare.toLowerCase()) || PRONOUNS.has(bare))) return null;
    if (i > 0 && NAME_ENDERS.has(bare.toLowerCase())) break;
    // "EWSD 1, LLC", "Pier 1 Services Company", "Back 2 Health, Ltd.": a number inside a name
    // that a legal-entity suffix ends.
    if (
      words > 0 &&
      /^\d+,?$/.test(token.text) &&
      tokens[i + 1] &&
      (isEntitySuffix(tokens[i + 1]!.text) || (/^\d+$/.test(token.text) && suffixAhead(tokens, i + 1)))
    ) {
      words += 1;
      end = token.start + bare.length;
      continue;
    }
    if (i === 0 && HONORIFICS.has(bare.toLowerCase()) && token.text.endsWith('.')) {
      // "Dr. Priya Raman": the honorific is part of the name as the contract writes it.
      end = token.start + token.text.length;
      continue;
    }
    if (isEntitySuffix(token.text) && words > 0) {
      // "Pty Ltd", "Co., Ltd.": suffixes may follow one another.
      let last = i;
      while (tokens[last + 1] && isEntitySuffix(tokens[last + 1]!.text) && last - i < 2) last += 1;
      const lastToken = tokens[last]!;
      end = lastToken.start + suffixText(lastToken.text).length;
      entity = true;
      words += 1;
      // "Open Joint Stock Company “Vimpel-Communications”": the quoted name after the form is the name's.
      end += quotedNameAfter(stretch.slice(start, end), stretch.slice(end, end + 80));
      // "Sony Corporation of America": up to three capitalised words of a place after "of".
      if (NAMED_FOR_PLACE.test(lastToken.text) && tokens[last + 1]?.text === 'of') {
        for (let j = last + 2; j < tokens.length && j < last + 5; j += 1) {
          const place = withoutTrailing(tokens[j]!.text, ',;:.');
          if (!/^\p{Lu}[\p{L}-]+$/u.test(place) || NAME_ENDERS.has(place.toLowerCase())) break;
          end = tokens[j]!.start + place.length;
          if (place !== tokens[j]!.text) break;
        }
      }
      break;
    }
    const next = tokens[i + 1];
    // "Altimo Holdings (BVI) Limited": the jurisdiction in the middle of the name.
    if (
      words > 0 &&
      JURISDICTION_IN_NAME.test(bare) &&
      next &&
      (isCapitalised(next.text) || isEntitySuffix(next.text))
    ) {
      words += 1;
      continue;
    }
    // "theglobe.com, inc.": a brand in lower case, when a legal-entity suffix follows it.
    if (
      isBrandWord(bare) &&
      (bare === token.text
        ? next && isEntitySuffix(next.text)
        : token.text === `${bare},` && next && isEntitySuffix(next.text))
    ) {
      words += 1;
      end = token.start + bare.length;
      continue;
    }
    // "Eli Lilly and Company": the firm's "and Company" is its name's.
    if (
      bare === 'and' &&
      words > 1 &&
      token.text === bare &&
      isAndCompany(tokens[i - 1]!.text, stretch.slice(tokens[i + 1]?.start ?? stretch.length))
    ) {
      const company = tokens[i + 1]!;
      end = company.start + withoutTrailing(company.text, ',;:').length;
      entity = true;
      words += 1;
      break;
    }
    // "Sears, Roebuck and Co.": the "and" before the founders' "Co.".
    if (bare === 'and' && token.text === bare && founders) continue;
    // "Boston Safe Deposit and Trust Company": an "and" inside a name a legal form ends.
    if (
      bare === 'and' &&
      token.text === bare &&
      words > 0 &&
      isInnerAnd(tokens[i - 1]!.text, tokens.slice(i + 1))
    )
      continue;
    if (CONNECTORS.has(bare.toLowerCase()) && words > 0 && bare === token.text) {
      const next = tokens[i + 1];
      if (next && isCapitalised(next.text)) continue;
      break;
    }
    if (!isCapitalised(bare)) break;
    words += 1;
    end = token.start + bare.length;
    // A trailing period is the name's when it ends an initial ("Jane A.") or initials written
    // with periods ("J.H. Cromarty", "L.E.K. Consulting LLC": a firm named for its founders'
    // initials writes them so), and the name goes on.
    if (token.text.endsWith('.') && INITIALS.test(bare)) end += 1;
    if (token.text !== bare && !token.text.endsWith('.')) {
      // "Acme, Inc.": a comma goes on only to a legal-entity suffix.
      const next = tokens[i + 1];
      if (next && isEntitySuffix(next.text)) continue;
      // "Thomas W. Mills, Sr.", "Eugene Wright, III": a person's generational suffix is written
      // after a comma and is part of the name (it tells father from son); nothing follows it.
      if (token.text === `${bare},` && next && !entity && words >= 2 && GENERATION.test(next.text)) {
        end = next.start + withoutTrailing(next.text, ',;:').length;
        words += 1;
        break;
      }
      // "Sears, Roebuck and Co.": a comma between the founders' names.
      if (token.text === `${bare},` && foundersAhead(tokens, i + 1)) {
        founders = true;
        continue;
      }
      break;
    }
    if (token.text.endsWith('.') && bare.length > 1 && !INITIALS.test(bare)) break;
  }
  if (end < 0 || words === 0) return null;
  const text = stretch.slice(start, end);
  return { start, text, entity, words };
}

/** The kind of company a descriptor ends with ("a Delaware corporation", "an Ohio banking corporation"). */
const COMPANY_FORMS = new Set(['corporation', 'company', 'partnership', 'association', 'bank']);
/** Words between "a" and the company's kind: "limited liability", "banking", "joint stock", "wholly owned". */
const FORM_QUALIFIERS = new Set(
  'limited liability general banking stock joint public private nonprofit non-profit not-for-profit professional business statutory national mutual savings chartered exempted open closed constitutional'.split(
    ' ',
  ),
);

/**
 * Whether `text` opens with a company's descriptor: ", a Delaware corporation", ", an Ohio banking
 * corporation", ", a California limited liability company", ", a Limited Partnership", ", a company
 * organized under the laws of …". Filings introduce each company that is a party by its name and,
 * after a comma, the jurisdiction and form it is organized under; the words before such a
 * descriptor are a company's name whatever they look like.
 */
function opensCompanyDescriptor(text: string): boolean {
  const article = /^,\s(?:an?)\s/.exec(text);
  if (!article) return false;
  const words = text.slice(article[0].length, article[0].length + 80).split(/[\s,]+/);
  for (let i = 0; i < words.length && i < 5; i += 1) {
    const word = words[i]!;
    if (COMPANY_FORMS.has(word.toLowerCase())) return true;
    // The jurisdiction ("New York", "British Virgin Islands") or a qualifier of the form.
    if (!isCapitalised(word) && !FORM_QUALIFIERS.has(word.toLowerCase())) return false;
  }
  return false;
}

/**
 * The company's name that `stretch` opens with when a descriptor follows it ("IXIA, a California
 * corporation", "99¢ Only Stores, a California corporation", "The Citizens Bank of Logan, an Ohio
 * banking corporation"): up to eight words, each capitalised (a number may open it, "99¢"; "The"
 * is its own when the company is registered so) or a connector inside it. The descriptor vouches
 * for what the other rules want from the words themselves (a legal form, two words at least).
 */
export function describedCompany(stretch: string): NameRun | null {
  const start = stretch.length - stretch.trimStart().length;
  const comma = stretch.indexOf(',', start);
  if (comma < 0 || !opensCompanyDescriptor(stretch.slice(comma))) return null;
  const text = stretch.slice(start, comma);
  const words = text.split(' ');
  if (words.length > 8) return null;
  const fits = words.every((word, i) => {
    if (i === 0 && (/^(?:The|THE)$/.test(word) || /^\d[\d.,-]*¢?$/.test(word))) return words.length > 1;
    if (i === 0) return nameWord(word);
    return (i < words.length - 1 && CONNECTORS.has(word.toLowerCase())) || isCapitalised(word);
  });
  return fits ? { start, text, entity: true, words: words.length } : null;
}

/** A capitalised word that may open a name: not "This", "Each", "Whereas". */
const nameWord = (word: string) => isCapitalised(word) && !NOT_NAMES.has(word.toLowerCase());

/**
 * The organization whose name ends `stretch` ("… except for Force Majeure cases, Tessellate
 * Software Pty Ltd "): read backwards over capitalised words from a legal-entity suffix, then
 * checked forwards. Null when the stretch does not end with one.
 */
export function entityBefore(
  stretch: string,
  isTerm: (word: string) => boolean = () => false,
): NameRun | null {
  const words = stretch.trimEnd().split(' ');
  let first = words.length - 1;
  // "a Delaware corporation": a suffix in lower case describes, it names nothing.
  if (first < 0 || !isEntitySuffix(words[first]!) || !isCapitalised(words[first]!)) return null;
  while (first > 0 && words.length - first < 12) {
    const previous = words[first - 1]!;
    // "of", "&" between capitalised words; a number inside the name ("Pier 1 Services Company").
    // "Boston Safe Deposit and Trust Company": an "and" inside the name (not after a defined term).
    const joins =
      ((CONNECTORS.has(previous.toLowerCase()) || /^\d+$/.test(previous)) &&
        first > 1 &&
        isCapitalised(words[first - 2]!)) ||
      (previous === 'and' &&
        first > 1 &&
        !isTerm(words[first - 2]!) &&
        isInnerAnd(
          words[first - 2]!,
          words.slice(first).map((text) => ({ text })),
        ));
    // A comma goes on only before a suffix ("Analytics, Inc.").
    // … or between founders' names before their "and Co." ("Sears, Roebuck and Co.").
    const founders = (from: number) =>
      from >= 0 &&
      foundersAhead(
        words.slice(from, from + 5).map((text) => ({ text })),
        0,
      );
    const fits = previous.endsWith(',')
      ? isEntitySuffix(words[first]!) || founders(first - 1)
      : isCapitalised(previous) ||
        joins ||
        (previous === 'and' && words[first - 3]?.endsWith(',') === true && founders(first - 3));
    if (!fits || NOT_NAMES.has(previous.toLowerCase())) break;
    first -= 1;
  }
  const offset = words.slice(0, first).join(' ').length + (first > 0 ? 1 : 0);
  const name = nameAt(stretch.slice(offset));
  return name?.entity ? { ...name, start: offset + name.start } : null;
}
