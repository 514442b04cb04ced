import { KIND, streamDictionaries } from './pdf-dictionaries.ts';
import { type Budget, decodeChain } from './pdf-filters.ts';

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
 * capped buffers that are dropped at once (pdf-filters.ts), before pdf.js reads it. pdf.js has no
 * bound of its own: it keeps a stream's whole decoded bytes (a 1 MB file whose page inflates to
 * 1,000 MiB took 20 s and 1.6 GB), and interprets a page's operators at about 400,000 a second.
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
