/** Where instantiation copies one active data segment into memory, and where its bytes lie in the file. */
export interface DataSegment {
  memoryOffset: number;
  fileOffset: number;
  length: number;
}

const DATA_SECTION = 11;

/**
 * The active data segments of memory 0 in the WebAssembly module `bytes`, read from its binary
 * format (webassembly.github.io/spec/core/binary/modules.html): the bytes instantiation writes
 * into a fresh memory. Offsets must be `i32.const`, as Emscripten writes them; passive segments
 * are left out (instantiation does not copy them). Throws on a malformed module.
 */
export function activeDataSegments(bytes: Uint8Array): DataSegment[] {
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`not a WebAssembly module this reader knows: ${why} (byte ${at})`);
  };
  const byte = () => (at < bytes.length ? bytes[at++]! : fail('ends early'));
  /** An unsigned LEB128 of at most 32 bits. */
  const u32 = () => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const next = byte();
      value += (next & 0x7f) * 2 ** shift;
      if ((next & 0x80) === 0) return value <= 0xffff_ffff ? value : fail('number too large');
    }
    return fail('number too long');
  };
  /** A signed LEB128 of at most 32 bits: a memory offset, which must not be negative. */
  const offset = () => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const next = byte();
      value += (next & 0x7f) * 2 ** shift;
      if ((next & 0x80) === 0) {
        if (next & 0x40) return fail('negative offset');
        return value <= 0x7fff_ffff ? value : fail('offset too large');
      }
    }
    return fail('number too long');
  };
  const constantOffset = () => {
    if (byte() !== 0x41) fail('offset not an i32.const');
    const value = offset();
    if (byte() !== 0x0b) fail('offset expression not ended');
    return value;
  };

  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (!header.every((expected) => byte() === expected)) fail('no version 1 header');
  const segments: DataSegment[] = [];
  while (at < bytes.length) {
    const id = byte();
    const size = u32();
    const end = at + size;
    if (end > bytes.length) fail('section past the end');
    if (id === DATA_SECTION) {
      for (let count = u32(); count > 0; count -= 1) {
        const flags = u32();
        if (flags > 2) fail(`data segment kind ${flags}`);
        if (flags === 2 && u32() !== 0) fail('a memory other than the first');
        const memoryOffset = flags === 1 ? -1 : constantOffset();
        const length = u32();
        const fileOffset = at;
        at += length;
        if (at > end) fail('segment past its section');
        if (memoryOffset >= 0) segments.push({ memoryOffset, fileOffset, length });
      }
    }
    at = end;
  }
  return segments;
}
