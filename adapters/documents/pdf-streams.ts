import zlib from 'node:zlib';
import { KIND, streamDictionaries } from './pdf-dictionaries.ts';

/** What a PDF's streams may decode to before pdf.js is given the file. */
export interface PdfStreamBounds {
  /** Most bytes one stream may decode to. */
  maxStreamBytes: number;
  /** Most bytes all its streams together may decode to. */
  maxDecodedBytes: number;
  /** Most tokens (operators, operands, delimiters) its bytes and decoded streams may hold. */
  maxTokens: number;
  /** Most pages: objects named `/Page`, in its bytes and decoded streams (pdf.js took 2.4 s to open 20,000). */
  maxPages: number;
}

/** Most filters a stream may name: a real one names one or two; each is a pass over its bytes. */
const MAX_FILTERS = 4;

/**
 * Why a PDF is past a bound of `bounds`, or null: a linear pass over its bytes that decodes every
 * stream as pdf.js would (its filters, in order, from the line after the `stream` keyword), into
 * capped buffers that are dropped at once, before pdf.js reads it. pdf.js has no bound of its own:
 * it keeps a stream's whole decoded bytes (a 1 MB file whose page inflates to 1,000 MiB took
 * 20 s and 1.6 GB), and interprets a page's operators at about 400,000 a second.
 *
 * Streams are found by their keyword, not through the cross-reference table, so a stream the
 * table hides (pdf.js rebuilds a broken table by the same scan) is counted too; their dictionaries
 * are read as pdf.js's parser reads them (pdf-dictionaries.ts). A stream whose dictionary names no
 * filter but whose data is a zlib stream is inflated all the same. Refused, as past a bound: a
 * filter named through an indirect object (`/Filter 5 0 R`, which this pass does not follow), more
 * than MAX_FILTERS filters, dictionaries read differently from different places, an inline image
 * in an object. Image filters end the chain (pdf.js reads no image for the text). What this pass
 * cannot see: an encrypted file's streams (their bytes are ciphertext here); the worker's memory
 * bound (text-extractor.ts) holds those.
 */
export async function pdfPastBounds(pdf: Uint8Array, bounds: PdfStreamBounds): Promise<string | null> {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  // The file's own bytes are read by pdf.js's lexer too (an unfiltered content stream).
  let tokens = countTokens(bytes);
  let pages = countPages(bytes);
  // Objects read inside one another cost more than the file: only a file built so has them.
  const dictionaries = streamDictionaries(bytes, 4 * bytes.length + 1024 * 1024);
  if ('past' in dictionaries) {
    return dictionaries.past === 'overlap'
      ? 'its objects overlap one another'
      : 'an object holds an inline image, which is not measured';
  }
  const budget: Budget = {
    // Input the first decoders may read in all: about the file once (a stream's decoder stops at
    // its end); more means streams overlap, which only a file built to multiply the work has.
    input: 2 * bytes.length + 1024 * 1024,
    // Every decoder's output, the next one's input: a chain's every step is charged.
    decoded: bounds.maxDecodedBytes,
    cap: bounds.maxStreamBytes,
  };
  let from = 0;
  // A cursor for each: one search for "CR or LF" would scan to the end for every keyword of a
  // file without CR.
  const lineFeeds = new Cursor((at) => bytes.indexOf(0x0a, at));
  const returns = new Cursor((at) => bytes.indexOf(0x0d, at));
  for (
    let at = bytes.indexOf('stream', from, 'latin1');
    at >= 0;
    at = bytes.indexOf('stream', from, 'latin1')
  ) {
    from = at + 6;
    if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') continue;
    const dict = dictionaries.streams.get(at);
    if (dict === 'ambiguous') return 'its objects read differently from different places';
    if (dict?.indirect) return 'a stream names its filter through another object';
    const filters = dict?.filters ?? [];
    if (filters.length > MAX_FILTERS) return `a stream names more than ${MAX_FILTERS} filters`;
    // pdf.js's skipToNextLine: the data begin after the end of the keyword's line.
    let start = nearest(lineFeeds.after(from), returns.after(from));
    if (start < 0) break;
    start += bytes[start] === 0x0d && bytes[start + 1] === 0x0a ? 2 : 1;
    const declared = dict?.length;
    const verified =
      declared !== undefined &&
      bytes
        .toString('latin1', start + declared, start + declared + 12)
        .trimStart()
        .startsWith('endstream');
    if (!filters.length && !isZlib(bytes, start)) continue;
    // The decoder stops at its own end, so it may read on when the length is not one pdf.js
    // would use as it stands (an indirect one may point past an \`endstream\` planted in the data).
    const end = verified ? start + declared : bytes.length;
    const result = await decodeChain(
      bytes.subarray(start, end),
      filters.length ? filters : ['FlateDecode'],
      budget,
    );
    if (result.past === 'input') return 'its streams overlap one another';
    if (result.past === 'stream') return `a stream decodes to more than ${bounds.maxStreamBytes} bytes`;
    if (result.past === 'decoded') return `its streams decode to more than ${bounds.maxDecodedBytes} bytes`;
    if (result.output && !result.image) {
      tokens += countTokens(result.output);
      pages += countPages(result.output);
    }
    if (tokens > bounds.maxTokens) {
      return `its content holds more than ${bounds.maxTokens} operators and operands`;
    }
    if (pages > bounds.maxPages) break;
  }
  return pages > bounds.maxPages ? `it has more than ${bounds.maxPages} pages` : null;
}

/** How many times the name `/Page` stands in `bytes` (not `/Pages`, `/PageMode`, …). */
function countPages(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pages = 0;
  for (
    let at = buffer.indexOf('/Page', 0, 'latin1');
    at >= 0;
    at = buffer.indexOf('/Page', at + 5, 'latin1')
  ) {
    const next = buffer[at + 5];
    if (next === undefined || KIND[next] !== 0) pages += 1;
  }
  return pages;
}

/** A forward-only search: the answer for `at` is reused while it is still ahead of `at`. */
class Cursor {
  #found = -2;
  readonly #search: (at: number) => number;
  constructor(search: (at: number) => number) {
    this.#search = search;
  }
  after(at: number): number {
    if (this.#found === -1) return -1;
    if (this.#found < at) this.#found = this.#search(at);
    return this.#found;
  }
}

/** The nearer of two positions, -1 being none. */
function nearest(a: number, b: number): number {
  if (a < 0) return b;
  return b < 0 ? a : Math.min(a, b);
}

/** A zlib header, as pdf.js's FlateStream checks it. */
function isZlib(bytes: Uint8Array, at: number): boolean {
  const cmf = bytes[at];
  const flg = bytes[at + 1];
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 0x08 && ((cmf << 8) + flg) % 31 === 0 && !(flg & 0x20);
}

/**
 * Filters whose output is an image: they end the chain. Not `Crypt`: without encryption pdf.js
 * passes the bytes on unchanged to the next filter (with it, the bytes are ciphertext here).
 */
const IMAGE_FILTERS = new Set([
  'DCT',
  'DCTDecode',
  'JPX',
  'JPXDecode',
  'JBIG2Decode',
  'CCF',
  'CCITTFaxDecode',
]);

/** What the document's decoding has left; `cap` bounds one stream. */
interface Budget {
  input: number;
  decoded: number;
  cap: number;
}

interface Decoded {
  /**
   * What the last decoder wrote; null when none ran (unknown filters hand on the bytes as they
   * are: the file's own, whose tokens are counted with the file's).
   */
  output: Uint8Array | null;
  /** An image filter ends the chain: the output is an image's bytes, never operators. */
  image: boolean;
  /** The bound the document is past. */
  past?: 'input' | 'stream' | 'decoded';
}

/**
 * A stream's filters in order: the first decoder's input is charged to `budget.input`, each
 * decoder's output (the next one's input) to `budget.decoded`, so no step reads what is not charged.
 */
async function decodeChain(data: Uint8Array, filters: string[], budget: Budget): Promise<Decoded> {
  let input = data.subarray(0, Math.max(0, budget.input) + 1);
  let output: Uint8Array | null = null;
  for (const filter of filters) {
    if (IMAGE_FILTERS.has(filter)) return { output, image: true };
    const decode = DECODERS[filter];
    // An unknown filter: pdf.js hands on the bytes as they are.
    if (!decode) continue;
    const step = await decode(input, budget.cap);
    if (!output) {
      // At least a byte each: a keyword is never free.
      budget.input -= Math.max(step.used, 1);
      if (budget.input < 0) return { output, image: false, past: 'input' };
    }
    output = step.output;
    input = output;
    if (output.length > budget.cap) return { output, image: false, past: 'stream' };
    budget.decoded -= output.length;
    if (budget.decoded < 0) return { output, image: false, past: 'decoded' };
  }
  return { output, image: false };
}

type Decoder = (input: Uint8Array, cap: number) => Promise<{ output: Uint8Array; used: number }>;

const flate: Decoder = (input, cap) =>
  streamDecode(zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }), input, cap);
const brotli: Decoder = (input, cap) => streamDecode(zlib.createBrotliDecompress(), input, cap);
const sync =
  (decode: (input: Uint8Array, cap: number) => { output: Uint8Array; used: number }): Decoder =>
  async (input, cap) =>
    decode(input, cap);

const DECODERS: Record<string, Decoder> = {
  Fl: flate,
  FlateDecode: flate,
  BrotliDecode: brotli,
  LZW: sync(lzw),
  LZWDecode: sync(lzw),
  RL: sync(runLength),
  RunLengthDecode: sync(runLength),
  A85: sync(ascii85),
  ASCII85Decode: sync(ascii85),
  AHx: sync(asciiHex),
  ASCIIHexDecode: sync(asciiHex),
};

/**
 * Node's zlib, chunk by chunk: stopped as soon as the output passes `cap`; what came before an
 * error is kept (pdf.js's own inflater, which it falls back to, yields it too).
 */
function streamDecode(
  decoder: zlib.Inflate | zlib.BrotliDecompress,
  input: Uint8Array,
  cap: number,
): Promise<{ output: Uint8Array; used: number }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = () => {
      decoder.destroy();
      resolve({ output: Buffer.concat(chunks), used: decoder.bytesWritten });
    };
    decoder.on('data', (chunk: Buffer) => {
      if (length > cap) return;
      length += chunk.length;
      chunks.push(chunk);
      if (length > cap) done();
    });
    decoder.on('end', done);
    decoder.on('error', done);
    decoder.end(input);
  });
}

/** Grows by doubling, never past `cap + 1` bytes (what is past it is dropped). */
class Output {
  bytes = new Uint8Array(4096);
  length = 0;
  readonly #cap: number;
  constructor(cap: number) {
    this.#cap = cap;
  }
  get full(): boolean {
    return this.length > this.#cap;
  }
  push(byte: number) {
    this.fill(byte, 1);
  }
  /** `count` copies of `byte`. */
  fill(byte: number, count: number) {
    const end = this.#room(count);
    this.bytes.fill(byte, this.length, end);
    this.length = end;
  }
  copy(bytes: Uint8Array) {
    const end = this.#room(bytes.length);
    this.bytes.set(bytes.subarray(0, end - this.length), this.length);
    this.length = end;
  }
  result(used: number) {
    return { output: this.bytes.subarray(0, this.length), used };
  }
  /** Makes room for `count` more bytes (fewer past the cap); returns where they end. */
  #room(count: number): number {
    const end = Math.min(this.length + count, this.#cap + 1);
    if (end > this.bytes.length) {
      let size = this.bytes.length;
      while (size < end) size *= 2;
      const grown = new Uint8Array(Math.min(size, this.#cap + 1));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    return end;
  }
}

/** LZW as pdf.js decodes it (early change 1, codes of 9 to 12 bits, 257 ends). */
function lzw(input: Uint8Array, cap: number) {
  const out = new Output(cap);
  const values = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const previous = new Uint16Array(4096);
  const sequence = new Uint8Array(4096);
  for (let i = 0; i < 256; i += 1) {
    values[i] = i;
    lengths[i] = 1;
  }
  let pos = 0;
  let cached = 0;
  let bits = 0;
  let codeLength = 9;
  let nextCode = 258;
  let prevCode = 0;
  let sequenceLength = 0;
  while (!out.full) {
    while (bits < codeLength && pos < input.length) {
      cached = ((cached << 8) | input[pos++]!) >>> 0;
      bits += 8;
    }
    if (bits < codeLength) break;
    bits -= codeLength;
    const code = (cached >>> bits) & ((1 << codeLength) - 1);
    const hasPrevious = sequenceLength > 0;
    if (code < 256) {
      sequence[0] = code;
      sequenceLength = 1;
    } else if (code >= 258) {
      if (code < nextCode) {
        sequenceLength = lengths[code]!;
        for (let j = sequenceLength - 1, q = code; j >= 0; j -= 1) {
          sequence[j] = values[q]!;
          q = previous[q]!;
        }
      } else {
        sequence[sequenceLength++] = sequence[0]!;
      }
    } else if (code === 256) {
      codeLength = 9;
      nextCode = 258;
      sequenceLength = 0;
      continue;
    } else {
      break;
    }
    if (hasPrevious) {
      previous[nextCode] = prevCode;
      lengths[nextCode] = lengths[prevCode]! + 1;
      values[nextCode] = sequence[0]!;
      nextCode += 1;
      const after = nextCode + 1;
      codeLength = after & (after - 1) ? codeLength : Math.min(Math.log2(after) + 1, 12) | 0;
    }
    prevCode = code;
    out.copy(sequence.subarray(0, sequenceLength));
  }
  return out.result(pos);
}

function runLength(input: Uint8Array, cap: number) {
  const out = new Output(cap);
  let pos = 0;
  while (pos < input.length && !out.full) {
    const n = input[pos++]!;
    if (n === 128) break;
    if (n < 128) {
      const literal = input.subarray(pos, pos + n + 1);
      out.copy(literal);
      pos += literal.length;
    } else if (pos < input.length) {
      out.fill(input[pos++]!, 257 - n);
    }
  }
  return out.result(pos);
}

function ascii85(input: Uint8Array, cap: number) {
  const out = new Output(cap);
  let pos = 0;
  let group = 0;
  let count = 0;
  while (pos < input.length && !out.full) {
    const c = input[pos++]!;
    if (c === 0x7e) break; // ~>
    if (c === 0x7a && count === 0) {
      out.fill(0, 4);
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group = group * 85 + (c - 0x21);
    count += 1;
    if (count === 5) {
      for (let shift = 24; shift >= 0; shift -= 8) out.push((group >>> shift) & 0xff);
      group = 0;
      count = 0;
    }
  }
  if (count > 1) {
    for (let i = count; i < 5; i += 1) group = group * 85 + 84;
    for (let i = 0; i < count - 1; i += 1) out.push((group >>> (24 - 8 * i)) & 0xff);
  }
  return out.result(pos);
}

function asciiHex(input: Uint8Array, cap: number) {
  const out = new Output(cap);
  let pos = 0;
  let high = -1;
  while (pos < input.length && !out.full) {
    const c = input[pos++]!;
    if (c === 0x3e) break; // >
    const digit =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 87 : -1;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else {
      out.push((high << 4) | digit);
      high = -1;
    }
  }
  if (high >= 0) out.push(high << 4);
  return out.result(pos);
}

/**
 * An upper bound of the tokens pdf.js's lexer reads in `bytes`: each run of regular characters
 * and each delimiter.
 */
export function countTokens(bytes: Uint8Array): number {
  let tokens = 0;
  let inRun = false;
  // A local name: a module's import read in a loop of millions is a lookup each time under vitest.
  const kinds = KIND;
  for (let i = 0; i < bytes.length; i += 1) {
    const kind = kinds[bytes[i]!]!;
    if (kind === 0) {
      if (!inRun) tokens += 1;
      inRun = true;
    } else {
      if (kind === 2) tokens += 1;
      inRun = false;
    }
  }
  return tokens;
}
