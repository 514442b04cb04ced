/** White space (1) and delimiters (2) of PDF syntax (pdf.js's specialChars); 0: a regular character. */
export const KIND = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) KIND[c] = 1;
for (const c of '()<>[]{}/%') KIND[c.charCodeAt(0)] = 2;

/** A stream's dictionary, as much of it as the measure needs. */
export interface StreamDictionary {
  /** Its filters' names, in order: `/F`, else `/Filter` (pdf.js looks them up so), at its own level. */
  filters: string[];
  /** A filter named through an indirect object (`5 0 R`): pdf.js follows it, this reader does not. */
  indirect: boolean;
  /** `/Length`, when it is a direct integer. */
  length: number | undefined;
}

/**
 * The dictionary of each stream, by the offset of its `stream` keyword: 'ambiguous' when objects
 * read from different places give it different filters (only a file built to mislead has that);
 * 'inline image' when an object holds one (`BI`: pdf.js reads its data by heuristics this reader
 * does not follow); 'overlap' when reading took more than `budget` bytes (objects read one
 * inside another).
 */
export type StreamDictionaries =
  | { streams: Map<number, StreamDictionary | 'ambiguous'> }
  | { past: 'overlap' | 'inline image' };

/**
 * Every stream dictionary of a PDF as pdf.js's parser reads it: an object is read from after each
 * `obj` keyword in the bytes (the cross-reference table may point at any of them, or pdf.js rebuilds
 * it by the same scan), token by token as pdf.js's lexer cuts them (strings with their escapes and
 * nesting, hex strings, comments, names with `#xx` escapes), in dictionaries and arrays to any
 * depth. A dictionary followed by `stream` is a stream's, wherever it stands; its entries are read
 * at its own level only (a dictionary inside it is another's) and, as pdf.js's do, the last of a
 * key counts and a token where a value is due is that value (even `>>`). After a stream the
 * object is read on past its `endstream`, as pdf.js does.
 *
 * Objects of a real file do not overlap, so reading them all costs about the file once; reading
 * stops past `budget` bytes, which only objects read inside one another reach.
 */
export function streamDictionaries(bytes: Buffer, budget: number): StreamDictionaries {
  const streams = new Map<number, StreamDictionary | 'ambiguous'>();
  const reader = new ObjectReader(bytes, budget, (at, dict) => {
    const known = streams.get(at);
    if (known === undefined) streams.set(at, dict);
    else if (known !== 'ambiguous' && !sameFilters(known, dict)) streams.set(at, 'ambiguous');
    else if (known !== 'ambiguous' && known.length !== dict.length) known.length = undefined;
  });
  for (let at = bytes.indexOf('obj', 0, 'latin1'); at >= 0; at = bytes.indexOf('obj', at + 3, 'latin1')) {
    // A keyword of its own: `endobj` and `objx` are other tokens; `0obj` is `0` and `obj`.
    const before = at > 0 ? bytes[at - 1]! : 0x20;
    if (KIND[before] === 0 && !(before >= 0x30 && before <= 0x39)) continue;
    if (at + 3 < bytes.length && KIND[bytes[at + 3]!] === 0) continue;
    const outcome = reader.read(at + 3);
    if (outcome) return { past: outcome };
  }
  return { streams };
}

function sameFilters(a: StreamDictionary, b: StreamDictionary): boolean {
  return a.indirect === b.indirect && a.filters.join('/') === b.filters.join('/');
}

const EOF = 0;
const NAME = 1;
const STRING = 2;
const DICT = 3;
const END_DICT = 4;
const ARRAY = 5;
const END_ARRAY = 6;
const NUMBER = 7;
const WORD = 8;
/** `)` outside a string: pdf.js's lexer throws, the object is not read. */
const ILLEGAL = 9;
/** `{`, `}`, a lone `>`. */
const OTHER = 10;

/** pdf.js's lexer over the file's bytes, each byte it passes charged to `left`. */
class Lexer {
  pos = 0;
  /** Where the last token began. */
  start = 0;
  /** A name's text (decoded). */
  text = '';
  /** A number's value when it is an integer, else NaN. */
  integer = Number.NaN;
  left: number;
  readonly #bytes: Buffer;
  constructor(bytes: Buffer, budget: number) {
    this.#bytes = bytes;
    this.left = budget;
  }

  /** Whether the next token is the keyword `word`. */
  nextIs(word: string): boolean {
    return this.next() === WORD && this.isWord(word);
  }

  /** Whether the last token, a word, is `word`. */
  isWord(word: string): boolean {
    if (this.pos - this.start !== word.length) return false;
    for (let i = 0; i < word.length; i += 1) {
      if (this.#bytes[this.start + i] !== word.charCodeAt(i)) return false;
    }
    return true;
  }

  /** The next token's type (its text in `text`, where it began in `start`). */
  next(): number {
    const b = this.#bytes;
    const n = b.length;
    let p = this.pos;
    for (;;) {
      if (p >= n) break;
      const c = b[p]!;
      if (KIND[c] === 1) p += 1;
      else if (c === 0x25) {
        while (p < n && b[p] !== 0x0a && b[p] !== 0x0d) p += 1;
      } else break;
    }
    this.start = p;
    let type: number;
    if (p >= n) type = EOF;
    else {
      const c = b[p]!;
      if (c === 0x28) {
        p = stringEnd(b, p + 1);
        type = STRING;
      } else if (c === 0x29) {
        p += 1;
        type = ILLEGAL;
      } else if (c === 0x3c) {
        if (b[p + 1] === 0x3c) {
          p += 2;
          type = DICT;
        } else {
          const end = b.indexOf(0x3e, p + 1);
          p = end < 0 ? n : end + 1;
          type = STRING;
        }
      } else if (c === 0x3e) {
        type = b[p + 1] === 0x3e ? END_DICT : OTHER;
        p += type === END_DICT ? 2 : 1;
      } else if (c === 0x5b || c === 0x5d) {
        type = c === 0x5b ? ARRAY : END_ARRAY;
        p += 1;
      } else if (c === 0x7b || c === 0x7d) {
        p += 1;
        type = OTHER;
      } else if (c === 0x2f) {
        p = this.#name(p + 1);
        type = NAME;
      } else if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
        // pdf.js reads a number up to its first other character: `0obj` is 0 and `obj`.
        p = this.#number(p);
        type = NUMBER;
      } else {
        while (p < n && KIND[b[p]!] === 0) p += 1;
        type = WORD;
      }
    }
    this.left -= p - this.pos;
    this.pos = p;
    return type;
  }

  /** A number's characters from `p` (a sign, digits, a point): sets `integer`; returns where it ends. */
  #number(p: number): number {
    const b = this.#bytes;
    let value = 0;
    let sign = 1;
    let digits = 0;
    let point = false;
    let whole = true;
    for (let first = true; p < b.length; p += 1, first = false) {
      const c = b[p]!;
      if (c >= 0x30 && c <= 0x39) {
        digits += 1;
        if (!point) value = value * 10 + (c - 0x30);
        else if (c !== 0x30) whole = false;
      } else if (c === 0x2e && !point) point = true;
      else if ((c === 0x2b || c === 0x2d) && first) sign = c === 0x2d ? -1 : 1;
      else if (c === 0x2b || c === 0x2d || c === 0x2e) whole = false;
      else break;
    }
    this.integer = whole && digits && value <= Number.MAX_SAFE_INTEGER ? sign * value : Number.NaN;
    return p;
  }

  /** A name's characters from `p`, `#xx` decoded as pdf.js's getName does; returns where it ends. */
  #name(p: number): number {
    const b = this.#bytes;
    let text = '';
    while (p < b.length && KIND[b[p]!] === 0) {
      let c = b[p]!;
      p += 1;
      const high = c === 0x23 ? hexDigit(b[p]) : -1;
      const low = high >= 0 ? hexDigit(b[p + 1]) : -1;
      if (low >= 0) {
        c = (high << 4) | low;
        p += 2;
      }
      // Only a name's first characters matter (the filters' names are short).
      if (text.length < 130) text += String.fromCharCode(c);
    }
    this.text = text;
    return p;
  }
}

function hexDigit(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 87 : -1;
}

/** Where a literal string that began before `p` ends: its parentheses nest, `\` escapes one byte. */
function stringEnd(b: Buffer, p: number): number {
  let depth = 1;
  while (p < b.length) {
    const c = b[p]!;
    p += 1;
    if (c === 0x5c) p += 1;
    else if (c === 0x28) depth += 1;
    else if (c === 0x29) {
      depth -= 1;
      if (!depth) return p;
    }
  }
  return b.length;
}

/** Where pdf.js's search finds a stream's end from `from`: `endstream` (or `endsteam`/`endstrea` and a space). */
function endstreamAt(b: Buffer, from: number): number {
  for (let at = b.indexOf('end', from, 'latin1'); at >= 0; at = b.indexOf('end', at + 1, 'latin1')) {
    const rest = b.toString('latin1', at + 3, at + 9);
    if (rest === 'stream') return at;
    if ((rest.startsWith('steam') || rest.startsWith('strea')) && KIND[b[at + 8] ?? 0x41] === 1) return at;
  }
  return -1;
}

const CONTAINER_DICT = 1;
const CONTAINER_ARRAY = 2;
/** The array that is a dictionary's `/F` or `/Filter`: its names are the filters. */
const CONTAINER_FILTERS = 3;

/** What a dictionary's `/F`, `/Filter` and `/Length` hold. */
interface Entries {
  /** `/F`'s value; `/Filter`'s; as filters (a name, an array of names, else none). */
  f?: { names: string[]; indirect: boolean };
  filter?: { names: string[]; indirect: boolean };
  length?: number;
}

/** A value just read: only what `/F`, `/Filter` and `/Length` may use is kept. */
type Value = { name: string } | { integer: number } | { ref: true } | { filters: Entries['filter'] } | null;

/** Reads one object at a time (iteratively: nesting costs memory in proportion, not the stack). */
class ObjectReader {
  readonly #bytes: Buffer;
  readonly #lexer: Lexer;
  readonly #found: (at: number, dict: StreamDictionary) => void;
  /** The containers open, innermost last. */
  #kinds = new Uint8Array(64);
  /** For a dictionary: 0 when a key is due; else the key whose value is due (1 F, 2 Filter, 3 Length, 4 any other). */
  #due = new Uint8Array(64);
  #depth = 0;
  /** The entries read so far of the open dictionaries that have any, by depth. */
  #entries = new Map<number, Entries>();

  constructor(bytes: Buffer, budget: number, found: (at: number, dict: StreamDictionary) => void) {
    this.#bytes = bytes;
    this.#lexer = new Lexer(bytes, budget);
    this.#found = found;
  }

  /** Reads the object that starts at `from`; why the whole reading must stop, if it must. */
  read(from: number): 'overlap' | 'inline image' | undefined {
    const lexer = this.#lexer;
    lexer.pos = from;
    this.#depth = 0;
    this.#entries.clear();
    for (;;) {
      const type = lexer.next();
      if (lexer.left < 0) return 'overlap';
      if (type === EOF || type === ILLEGAL) return undefined;
      const top = this.#depth - 1;
      const kind = top >= 0 ? this.#kinds[top]! : 0;
      if (kind === CONTAINER_DICT && this.#due[top] === 0) {
        // A key is due: anything but a name or `>>` is one token skipped, as pdf.js skips it.
        if (type === NAME) {
          const key = lexer.text;
          this.#due[top] = key === 'F' ? 1 : key === 'Filter' ? 2 : key === 'Length' ? 3 : 4;
        } else if (type === END_DICT && this.#closeDictionary()) return undefined;
        continue;
      }
      let value: Value = null;
      if (type === DICT || type === ARRAY) {
        const due = kind === CONTAINER_DICT ? this.#due[top]! : 0;
        this.#open(
          type === DICT ? CONTAINER_DICT : due === 1 || due === 2 ? CONTAINER_FILTERS : CONTAINER_ARRAY,
        );
        continue;
      }
      if (type === END_ARRAY && (kind === CONTAINER_ARRAY || kind === CONTAINER_FILTERS)) {
        value = kind === CONTAINER_FILTERS ? { filters: this.#entries.get(top)?.filter } : null;
        this.#close();
      } else if (type === NAME) value = { name: lexer.text };
      else if (type === NUMBER) value = this.#number();
      else if (type === WORD && lexer.isWord('BI')) return 'inline image';
      if (this.#valueRead(value)) return undefined;
    }
  }

  /** A number, or a reference `n g R` (pdf.js's getObj looks two tokens ahead). */
  #number(): Value {
    const lexer = this.#lexer;
    const value = lexer.integer;
    if (Number.isNaN(value)) return null;
    const after = lexer.pos;
    if (lexer.next() === NUMBER && !Number.isNaN(lexer.integer)) {
      if (lexer.nextIs('R')) return { ref: true };
    }
    lexer.pos = after;
    return { integer: value };
  }

  #open(kind: number) {
    if (this.#depth === this.#kinds.length) {
      const kinds = new Uint8Array(this.#depth * 2);
      kinds.set(this.#kinds);
      this.#kinds = kinds;
      const due = new Uint8Array(this.#depth * 2);
      due.set(this.#due);
      this.#due = due;
    }
    this.#kinds[this.#depth] = kind;
    this.#due[this.#depth] = 0;
    this.#entries.delete(this.#depth);
    this.#depth += 1;
  }

  #close() {
    this.#depth -= 1;
    this.#entries.delete(this.#depth);
  }

  /**
   * `>>` ends the innermost dictionary: followed by `stream`, it is a stream's, and the object
   * goes on after its data. True when the object has ended.
   */
  #closeDictionary(): boolean {
    const lexer = this.#lexer;
    const entries = this.#entries.get(this.#depth - 1) ?? {};
    this.#close();
    const after = lexer.pos;
    if (!lexer.nextIs('stream')) {
      lexer.pos = after;
      return this.#valueRead(null);
    }
    const keyword = lexer.start;
    const filters = entries.f ?? entries.filter ?? { names: [], indirect: false };
    this.#found(keyword, { filters: filters.names, indirect: filters.indirect, length: entries.length });
    const data = dataStart(this.#bytes, lexer.pos);
    lexer.left -= (data < 0 ? this.#bytes.length : data) - lexer.pos;
    if (data < 0) return true;
    // pdf.js takes a direct length that ends at `endstream`, else searches for the keyword.
    let end = -1;
    if (entries.length !== undefined && data + entries.length <= this.#bytes.length) {
      lexer.pos = data + entries.length;
      if (lexer.nextIs('endstream')) end = lexer.start;
    }
    if (end < 0) end = endstreamAt(this.#bytes, data);
    lexer.left -= (end < 0 ? this.#bytes.length : end) - data;
    if (end < 0) return true;
    lexer.pos = end;
    lexer.next();
    return this.#valueRead(null);
  }

  /** A value read where one was due; true when it was the whole object. */
  #valueRead(value: Value): boolean {
    const top = this.#depth - 1;
    if (top < 0) return true;
    const kind = this.#kinds[top]!;
    if (kind === CONTAINER_FILTERS) {
      const entries = this.#entryOf(top);
      entries.filter ??= { names: [], indirect: false };
      if (value && 'name' in value) entries.filter.names.push(value.name);
      if (value && 'ref' in value) entries.filter.indirect = true;
      return false;
    }
    if (kind !== CONTAINER_DICT) return false;
    const due = this.#due[top]!;
    this.#due[top] = 0;
    if (due === 1 || due === 2) {
      const filters =
        value && 'filters' in value
          ? (value.filters ?? { names: [], indirect: false })
          : {
              names: value && 'name' in value ? [value.name] : [],
              indirect: Boolean(value && 'ref' in value),
            };
      const entries = this.#entryOf(top);
      if (due === 1) entries.f = filters;
      else entries.filter = filters;
    } else if (due === 3) {
      this.#entryOf(top).length =
        value && 'integer' in value && value.integer >= 0 ? value.integer : undefined;
    }
    return false;
  }

  #entryOf(depth: number): Entries {
    let entries = this.#entries.get(depth);
    if (!entries) {
      entries = {};
      this.#entries.set(depth, entries);
    }
    return entries;
  }
}

/** pdf.js's skipToNextLine: a stream's data begin after the end of its keyword's line (CR, LF or CR LF). */
function dataStart(b: Buffer, from: number): number {
  for (let p = from; p < b.length; p += 1) {
    if (b[p] === 0x0a) return p + 1;
    if (b[p] === 0x0d) return b[p + 1] === 0x0a ? p + 2 : p + 1;
  }
  return -1;
}
