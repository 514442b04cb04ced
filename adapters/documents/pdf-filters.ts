/*
 * The stream filters of a PDF, decoded as pdf.js decodes them but into capped buffers, for the
 * measure of the file before pdf.js reads it (pdf-streams.ts): each decoder stops once its output
 * passes the cap, and a chain is charged to the document's budget step by step.
 */
import zlib from 'node:zlib';

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
export interface Budget {
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
export async function decodeChain(data: Uint8Array, filters: string[], budget: Budget): Promise<Decoded> {
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
