import type { Finding } from '../findings.ts';
import { isDescription } from './descriptions.ts';
import { descriptionName, isPlausibleName, toSnakeCase } from './names.ts';

/**
 * The tags of template languages: fields (`{name}`, `{{ name | filter }}`, `{{{raw}}}`,
 * `+++INS name+++`, `<Name>`, `<<Name>>`, `«Name»`) and directives, which are control flow and never
 * variables themselves: their subjects are (`condition` for `{IF x}`, `{#if x}`, `{{#if x}}`,
 * `{% if x %}`, `{^x}`; `list` for `{FOR d IN items}`, `{{#each items}}`, `{% for d in items %}`,
 * `{-w:p items}`, `{#items}`). A directive subject's `text` is the directive as it stands, so a
 * client finds it in the document.
 *
 * A field that names a loop's variable (`{d.name}` or `{$d.name}` inside `{FOR d IN items}`,
 * `{{ this.name }}` inside `{{#each items}}`) is named after the list (`items_name`): the loop
 * variable is a local alias, the data a user fills in is the list's, and two loops may use the
 * same letter for different lists. A bare name inside a loop (`{rate}` in `{#rates}`) keeps its
 * own name: the language looks it up in the item and then outside, so it cannot be told apart.
 *
 * Tags are found by scans with indexOf, never by patterns over the whole text: a tag is at most
 * MAX_TAG characters on one line, and a scan that gives up resumes where it stopped, so each
 * character is read a bounded number of times (a megabyte of `{{{{` takes milliseconds).
 */
const MAX_TAG = 200;
/**
 * At most this many tags of one kind are read: a 20-page template has a few hundred, and the
 * answer holds at most MAX_VARIABLES; a document of nothing but tags stops here, in milliseconds.
 */
const MAX_TAGS = 20_000;
/** Loops nested deeper than this are not followed (real templates nest a few levels). */
const MAX_NESTING = 32;

interface RawTag {
  index: number;
  end: number;
  /** `{`, `{{`, `{{{`, `{%`, `+++`, `<`, `<<`, `«`. */
  opener: string;
  inner: string;
}

type Tag =
  | { kind: 'field'; path: string }
  /** A description in braces (`{pre-money valuation}`), named as a bracketed one is. */
  | { kind: 'described'; name: string }
  | { kind: 'condition'; expression: string }
  | { kind: 'list'; expression: string; loopVariables: string[]; closer: string }
  | { kind: 'close'; closer: string }
  | { kind: 'none' };

interface Loop {
  closer: string;
  list: string;
  loopVariables: string[];
}

export function scanTemplateTags(text: string): Finding[] {
  const tags = [
    ...delimitedRuns(text, '{', '}', 1, 3),
    ...delimitedRuns(text, '<', '>', 1, 2),
    ...delimitedRuns(text, '«', '»', 1, 1),
    ...plusTags(text),
  ].sort((a, b) => a.index - b.index);
  const found: Finding[] = [];
  const loops: Loop[] = [];
  for (const raw of tags) {
    const tag = readTag(raw);
    const whole = text.slice(raw.index, raw.end);
    const add = (kind: Finding['kind'], path: string | null) => {
      const name = path === null ? '' : toSnakeCase(resolve(path, loops));
      // `${name}`: the dollar sign is the field's, as template literals and Velocity write it.
      const start = raw.opener === '{' && text[raw.index - 1] === '$' ? raw.index - 1 : raw.index;
      if (name && isPlausibleName(name))
        found.push({ index: start, name, kind, text: text.slice(start, raw.end) });
    };
    if (tag.kind === 'field') add('placeholder', tag.path);
    else if (tag.kind === 'described' && isPlausibleName(tag.name)) {
      found.push({ index: raw.index, name: tag.name, kind: 'placeholder', text: whole });
    } else if (tag.kind === 'condition') add('condition', subject(tag.expression));
    else if (tag.kind === 'list') {
      const list = subject(tag.expression);
      add('list', list);
      const resolved = list === null ? '' : resolve(list, loops);
      // Past MAX_NESTING, a loop is not followed: every tag then costs at most MAX_NESTING steps.
      if (loops.length < MAX_NESTING) {
        loops.push({ closer: tag.closer, list: resolved, loopVariables: tag.loopVariables });
      }
    } else if (tag.kind === 'close') {
      const at = loops.findLastIndex((loop) => loop.closer === tag.closer);
      if (at >= 0) loops.length = at;
    }
  }
  return found;
}

/**
 * `d.name` with `d` a loop's variable (or `this`) → `items.name`; the innermost loop wins. The
 * loop variable alone is the list's item: `items.item`. Outside loops, `d.` is Carbone's root.
 */
function resolve(path: string, loops: readonly Loop[]): string {
  const [first, ...rest] = path.replace(/^\$/, '').split('.');
  for (let i = loops.length - 1; i >= 0; i -= 1) {
    const loop = loops[i]!;
    if (first === 'this' || loop.loopVariables.includes(first!)) {
      return [loop.list, ...(rest.length > 0 ? rest : ['item'])].filter(Boolean).join('.');
    }
  }
  // Outside a loop, `d.` is Carbone's data root: `{d.customer.name}` is `customer_name`.
  return first === 'this' || (first === 'd' && rest.length > 0) ? rest.join('.') : path.replace(/^\$/, '');
}

/** What a tag is, from its delimiters and what stands between them. */
function readTag({ opener, inner: asWritten }: RawTag): Tag {
  const inner = asWritten.replace(/\s+/g, ' ');
  if (opener === '{' && inner.startsWith('%') && inner.endsWith('%') && inner.length >= 2) {
    return jinjaStatement(trimControl(inner.slice(1, -1)));
  }
  if (opener === '{' && inner.startsWith('#') && inner.endsWith('#') && inner.length >= 2) {
    return { kind: 'none' }; // a Jinja comment
  }
  if (opener === '{{' && inner.startsWith('%')) return { kind: 'none' }; // an Accord formula
  const content = opener === '{' || opener === '+++' ? inner.trim() : trimControl(inner);
  if (opener === '<') {
    // `<Company Name>`, `<DEPARTMENT>`, `<University, Country>`: a form's field in single angle
    // brackets, as Word templates and research forms write them. Not markup: an HTML tag starts in
    // lower case (`<b>`) and holds no underscore, an address or a link holds `@` or `:`, and EDGAR's SGML tags
    // (`<PAGE>`, `<TABLE>`, `<S>`, `<C>`) mark a filing's pages and tables.
    return ANGLE_FIELD.test(content) && !EDGAR_TAGS.has(content)
      ? { kind: 'field', path: content }
      : { kind: 'none' };
  }
  // « le Partenaire »: French, Swiss and other European typography quote with guillemets and a
  // space inside each; Word prints a merge field as «Name», with none.
  if (opener === '«' && /^\s|\s$/.test(asWritten)) return { kind: 'none' };
  if (opener === '<<' || opener === '«') {
    // Word's «Next Record» is a mail merge instruction, not a field.
    return MERGE_NAME.test(content) && !/^next ?record/i.test(content)
      ? { kind: 'field', path: content }
      : { kind: 'none' };
  }
  const directive = blockTag(content) ?? commandTag(content);
  if (directive) return directive;
  const tag = fieldTag(content);
  if (tag.kind !== 'none' || !opener.startsWith('{{')) return tag;
  // `{{ … }}` is a template's output whatever it holds (`{{ party.name if party else "" }}`):
  // its first variable names it.
  const variable = subject(content);
  return variable === null ? tag : { kind: 'field', path: variable };
}

/**
 * Jinja / Nunjucks / Twig: `{% if x %}`, `{% elif x %}`, `{% for d in items %}`, `{% endfor %}`;
 * docxtpl's (and docassemble's) `{%p if x %}`, `{%tr for d in items %}` say which element the
 * statement stands for (paragraph, table row, cell, run).
 */
function jinjaStatement(statement: string): Tag {
  const [keyword = '', rest] = splitFirstWord(statement.replace(/^(?:p|tr|tc|r)\s/, ''));
  const word = keyword.toLowerCase();
  if (word === 'if' || word === 'elif' || word === 'elseif') return { kind: 'condition', expression: rest };
  if (word === 'for') return forLoop(rest, 'endfor');
  if (word === 'endfor') return { kind: 'close', closer: 'endfor' };
  return { kind: 'none' };
}

/** `d in items`, `k, v in items` (Jinja), `d IN items` (docx-templates). */
function forLoop(rest: string, closer: string): Tag {
  const split = rest.search(/\sin\s/i);
  if (split < 0) return { kind: 'none' };
  const loopVariables = rest
    .slice(0, split)
    .split(',')
    .map((name) => name.trim().replace(/^\$/, ''))
    .filter(Boolean);
  const expression = rest.slice(split + 4);
  // docx-templates closes a loop with its variable: `{END-FOR d}`.
  return { kind: 'list', expression, loopVariables, closer: closer || `end-for ${loopVariables[0]}` };
}

/**
 * Handlebars / Mustache / docxtemplater / Accord blocks: `#if x`, `#unless x`, `#each items`,
 * `#olist items`, `#optional x`, `#items`, `^x`, `/x`, `else`, `else if x`, `-w:p items`; partials
 * and comments (`> x`, `! x`) are nothing; `@raw` and `%image` are fields.
 */
function blockTag(content: string): Tag | null {
  const sigil = content[0];
  const body = content.slice(1).trim();
  if (sigil === '!' || sigil === '>') return { kind: 'none' };
  if (sigil === '/') return { kind: 'close', closer: body.toLowerCase() };
  if (sigil === '^') return { kind: 'condition', expression: body };
  if (sigil === '@' || sigil === '%') return fieldTag(body.replace(/^%/, ''));
  if (sigil === '-' && /^w:\w+\s/.test(body)) {
    const list = body.slice(body.search(/\s/)).trim();
    return { kind: 'list', expression: list, loopVariables: [], closer: list.toLowerCase() };
  }
  const [first = '', afterElse] = splitFirstWord(content);
  if (/^:?else$/i.test(first)) {
    // `{{else}}`, `{:else}`, `{{else if x}}`.
    const [keyword = '', expression] = splitFirstWord(afterElse);
    return keyword.toLowerCase() === 'if' && expression
      ? { kind: 'condition', expression }
      : { kind: 'none' };
  }
  if (sigil !== '#') return null;
  const [keyword = '', rest] = splitFirstWord(body);
  const word = keyword.toLowerCase();
  if (!rest) {
    // A section (`{#items}…{/items}`): a loop over a list, or a condition on a flag.
    if (!IDENTIFIER_PATH.test(keyword)) return { kind: 'none' };
    return BOOLEAN_NAME.test(keyword)
      ? { kind: 'condition', expression: keyword }
      : { kind: 'list', expression: keyword, loopVariables: [], closer: keyword.toLowerCase() };
  }
  if (word === 'if' || word === 'unless' || word === 'optional')
    return { kind: 'condition', expression: rest };
  if (word === 'each' || word === 'olist' || word === 'ulist' || word === 'join') {
    // `{{#each items as |item index|}}`: `item` names the current item.
    const as = rest.search(/\sas\s+\|/);
    const expression = as < 0 ? rest : rest.slice(0, as);
    const loopVariables = as < 0 ? [] : rest.slice(as).replace(/[|]/g, ' ').trim().split(/\s+/).slice(1, 2);
    return { kind: 'list', expression, loopVariables, closer: word };
  }
  return { kind: 'none' };
}

/** docx-templates commands: `IF x`, `ELSEIF x`, `FOR d IN items`, `END-FOR d`, `INS x`, `= x`, `EXEC …`. */
function commandTag(content: string): Tag | null {
  if (content.startsWith('=')) return fieldTag(content.slice(1).trim());
  const [keyword = '', rest] = splitFirstWord(content);
  switch (keyword.toUpperCase()) {
    case 'IF':
    case 'ELSEIF':
      return rest ? { kind: 'condition', expression: rest } : null;
    case 'FOR':
      return forLoop(rest, '');
    case 'END-FOR':
      return { kind: 'close', closer: `end-for ${rest.replace(/^\$/, '')}` };
    case 'INS':
      return rest ? fieldTag(rest) : null;
    case 'ELSE':
    case 'END-IF':
    case 'EXEC':
    case 'IMAGE':
    case 'LINK':
    case 'HTML':
    case 'ALIAS':
      return { kind: 'none' };
    default:
      return content.startsWith('*') ? { kind: 'none' } : null;
  }
}

/**
 * A field: a name or a dotted path, with filters (`name | upper`) or an Accord format
 * (`amount as "0,0.00 CCC"`) after it; a few words (`{Company Name}`); or a description in
 * words, as in brackets (`{pre-money valuation}`). Anything else (JSON, code, a sentence) is
 * no field.
 */
function fieldTag(content: string): Tag {
  // docxtpl's `{{p subdoc }}`, `{{r rich_text }}`: the element the value stands for, then the value.
  let path = content.replace(/^(?:p|r|tr|tc) (?=\S)/, '');
  if (/^[dc]\.[\p{L}_][\p{L}\p{N}_.]*[[:]/u.test(path) || path.startsWith('c.')) return carboneTag(path);
  const pipe = path.indexOf('|');
  if (pipe >= 0) path = path.slice(0, pipe);
  const as = path.search(/\sas\s+["']/);
  if (as >= 0) path = path.slice(0, as);
  path = path.trim();
  if (IDENTIFIER_PATH.test(path) || FIELD_WORDS.test(path)) return { kind: 'field', path };
  if (DESCRIPTION_TEXT.test(content) && !/\w\(/.test(content) && isDescription(content)) {
    return { kind: 'described', name: descriptionName(content) };
  }
  return { kind: 'none' };
}

/**
 * Carbone: `{d.name}`, `{d.cars[i].brand}` (a field of each item: `cars_brand`), `{d.cars[i+1]}`
 * (where the loop's repetition ends: nothing), formatters after `:` (`{d.total:formatC()}`), a
 * condition as a formatter (`{d.vip:ifEQ(true):showBegin}`); `d.` is the data's root, `c.` the
 * rendering options (nothing).
 */
function carboneTag(content: string): Tag {
  const colon = content.indexOf(':');
  const formatters = colon < 0 ? '' : content.slice(colon);
  if (content.startsWith('c.') || /:(?:showEnd|hideEnd)\b/.test(formatters)) return { kind: 'none' };
  let path = '';
  let depth = 0;
  let index = '';
  for (const char of colon < 0 ? content : content.slice(0, colon)) {
    if (char === '[') depth += 1;
    else if (char === ']') {
      depth -= 1;
      if (/\+/.test(index)) return { kind: 'none' }; // `[i+1]`: the end of a repetition
      index = '';
    } else if (depth > 0) index += char;
    else path += char;
  }
  path = path.slice(2);
  if (!IDENTIFIER_PATH.test(path)) return { kind: 'none' };
  return /:(?:if|showBegin|hideBegin)/.test(formatters)
    ? { kind: 'condition', expression: path }
    : { kind: 'field', path };
}

/**
 * The variable a directive's expression is about: its first name or dotted path, outside
 * string literals, that is no keyword and no helper (`eq` in `(eq status "x")`); a method call
 * (`items.items()`) names its object.
 */
export function subject(expression: string): string | null {
  const unquoted = withoutStrings(expression);
  for (const match of unquoted.matchAll(/[\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*/gu)) {
    const path = match[0];
    const before = unquoted[match.index - 1];
    const after = unquoted[match.index + path.length];
    if (KEYWORDS.has(path.toLowerCase()) || before === '(') continue;
    if (after === '(') {
      const dot = path.lastIndexOf('.');
      if (dot < 0) continue;
      return path.slice(0, dot);
    }
    return path;
  }
  return null;
}

const CLOSING_QUOTE: Record<string, string> = { '"': '"', "'": "'", '“': '”', '‘': '’' };

/** The expression with its string literals blanked (one pass: a pattern would rescan unclosed quotes). */
function withoutStrings(expression: string): string {
  let result = '';
  let closing = '';
  for (const char of expression) {
    if (closing) {
      if (char === closing) closing = '';
      result += ' ';
    } else if (CLOSING_QUOTE[char]) {
      closing = CLOSING_QUOTE[char];
      result += ' ';
    } else {
      result += char;
    }
  }
  return result;
}

const KEYWORDS = new Set(['not', 'and', 'or', 'in', 'is', 'true', 'false', 'none', 'null', 'undefined']);
const IDENTIFIER_PATH = /^\$?[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)*$/u;
/** `{Company Name}`, `{pre-money valuation}`: up to six words of letters, digits and hyphens. */
const FIELD_WORDS = /^\p{L}[\p{L}\p{N}-]*(?: [\p{L}\p{N}-]+){0,5}$/u;
/** Words, not code: `{list of accredited investors approved by the company}`. */
const DESCRIPTION_TEXT = /^\p{L}[\p{L}\p{N},.'’()/&-]*(?: [\p{L}\p{N},.'’()/&-]+)+$/u;
/**
 * A field in single angle brackets: a capital, then words, at most 60 characters; or a name in
 * snake_case (`<notice_period>`): no HTML tag holds an underscore.
 */
const ANGLE_FIELD = /^\p{Lu}[\p{L}\p{N} ,.'’&/-]{0,59}$|^[a-z][a-z0-9]{0,29}(?:_[a-z0-9]{1,29}){1,5}$/u;
/** The SGML tags of an EDGAR filing's text (its documents, pages and tables), no fields. */
const EDGAR_TAGS = new Set([
  'PAGE',
  'TABLE',
  'CAPTION',
  'S',
  'C',
  'FN',
  'DOCUMENT',
  'TYPE',
  'SEQUENCE',
  'FILENAME',
  'DESCRIPTION',
  'TEXT',
  'PRE',
  'SEC-DOCUMENT',
  'SEC-HEADER',
]);
/** A mail-merge field's name: `«Supplier Legal Name»`, `<<DISCOUNT_%>>`, `<<YES/NO>>`. */
const MERGE_NAME = /^\p{L}[\p{L}\p{N}_ .,'&/%#-]{0,60}$/u;
/** A section named like a flag (`{#hasKitty}`, `{#is_signed}`) is a condition, not a loop. */
const BOOLEAN_NAME =
  /^(?:is|has|have|show|hide|include|includes|use|uses|with|without|can|should|allow|allows|enable|enabled|needs?|requires?)(?:[_A-Z]|$)/;

function splitFirstWord(text: string): [string, string] {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  return space < 0 ? [trimmed, ''] : [trimmed.slice(0, space), trimmed.slice(space + 1).trim()];
}

/** Jinja's and Handlebars' white-space control (`{{- x -}}`, `{{~x~}}`), then spaces. */
function trimControl(inner: string): string {
  let start = 0;
  let end = inner.length;
  if (inner[start] === '-' || inner[start] === '~') start += 1;
  if (end > start && (inner[end - 1] === '-' || inner[end - 1] === '~')) end -= 1;
  return inner.slice(start, end).trim();
}

/**
 * Tags delimited by runs of one character: `{x}`, `{{x}}`, `{{{x}}}`, `<<x>>`, `«x»`. The
 * content holds no delimiter, at most one line break (a PDF may wrap a long tag) and is at most
 * MAX_TAG long; the closing run is
 * matched to the opening one (`{{x}` is the tag `{x}`). A scan that fails resumes at the
 * character that stopped it, so the whole is linear.
 */
function delimitedRuns(text: string, open: string, close: string, minRun: number, maxRun: number): RawTag[] {
  const tags: RawTag[] = [];
  let at = text.indexOf(open);
  while (at >= 0 && tags.length < MAX_TAGS) {
    let openRun = 0;
    while (text[at + openRun] === open) openRun += 1;
    const contentStart = at + openRun;
    let contentEnd = contentStart;
    let lineBreaks = 0;
    while (contentEnd < text.length && contentEnd - contentStart <= MAX_TAG) {
      const char = text[contentEnd];
      if (char === '\n') lineBreaks += 1;
      if (char === open || char === close || lineBreaks > 1) break;
      contentEnd += 1;
    }
    let closeRun = 0;
    while (closeRun < openRun && text[contentEnd + closeRun] === close) closeRun += 1;
    const run = Math.min(openRun, closeRun);
    if (openRun <= maxRun && run >= minRun && contentEnd > contentStart) {
      tags.push({
        index: contentStart - run,
        end: contentEnd + run,
        opener: text.slice(contentStart - run, contentStart),
        inner: text.slice(contentStart, contentEnd),
      });
      at = text.indexOf(open, contentEnd + run);
    } else {
      at = text.indexOf(open, contentEnd);
    }
  }
  return tags;
}

/** docx-templates' default delimiters: `+++INS name+++`, `+++IF x+++`. */
function plusTags(text: string): RawTag[] {
  const tags: RawTag[] = [];
  let at = text.indexOf('+++');
  while (at >= 0 && tags.length < MAX_TAGS) {
    const close = text.indexOf('+++', at + 3);
    if (close < 0) break;
    const inner = close - at <= MAX_TAG ? text.slice(at + 3, close) : '';
    if (inner.trim() && !inner.includes('\n')) {
      tags.push({ index: at, end: close + 3, opener: '+++', inner });
      at = text.indexOf('+++', close + 3);
    } else {
      at = close;
    }
  }
  return tags;
}
