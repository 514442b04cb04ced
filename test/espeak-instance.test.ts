import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { type FileHandle, open as openFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EspeakInstance, openEspeak } from '../adapters/speech/espeak-instance.ts';
import { compileEspeak } from '../adapters/speech/espeak-module.ts';
import { activeDataSegments } from '../adapters/speech/wasm-data-segments.ts';

/**
 * The speaking thread's espeak-ng instance, reset before each answer without a copy of its
 * initial state (the module's data segments are read back from its file): run here, in the test's
 * own thread, so that its memory can be compared byte for byte with a fresh instance's.
 */
const WASM = createRequire(import.meta.url)
  .resolve('espeak-ng')
  .replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
const work = mkdtempSync(path.join(tmpdir(), 'espeak-instance-'));
const copy = path.join(work, 'espeak-ng.wasm');
copyFileSync(WASM, copy);
const files: FileHandle[] = [];
const open = async (file = WASM) => {
  const handle = await openFile(file, 'r');
  files.push(handle);
  return openEspeak(await compileEspeak(handle));
};

let fresh: EspeakInstance;
let used: EspeakInstance;
beforeAll(async () => {
  [fresh, used] = await Promise.all([open(), open()]);
});
afterAll(async () => {
  await Promise.all(files.map((handle) => handle.close()));
  rmSync(work, { recursive: true, force: true });
});

const bytesOf = (instance: EspeakInstance) => new Uint8Array(instance.memory.buffer);
/** Where two memories differ (a shorter one is zeros past its end), as a count of bytes. */
function differences(a: Uint8Array, b: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) count += 1;
  return count;
}
const speak = (instance: EspeakInstance, text: string, voice = 'en-us+Annie') => instance.speak(text, voice);

describe('an espeak-ng instance reset before each answer', () => {
  it('is, after an answer and reset, byte for byte a fresh instance', () => {
    speak(used, 'A secret: the discount is forty percent. '.repeat(50), 'en-gb+robert');
    expect(differences(bytesOf(used), bytesOf(fresh))).toBeGreaterThan(0);
    used.reset();
    expect(differences(bytesOf(used), bytesOf(fresh))).toBe(0);
    expect(used.stackPointer()).toBe(fresh.stackPointer());
  });

  it('undoes a stray write anywhere: in the voices’ data, between segments, past them', () => {
    const memory = bytesOf(used);
    const segments = activeDataSegments(readFileSync(WASM));
    const last = segments.at(-1)!;
    for (const at of [
      0,
      segments[0]!.memoryOffset + 1_000_000,
      last.memoryOffset - 1,
      last.memoryOffset + last.length + 5,
      memory.length - 1,
    ])
      memory[at] = 0xa5;
    used.reset();
    expect(differences(bytesOf(used), bytesOf(fresh))).toBe(0);
  });

  it('speaks the same text the same, whatever it spoke before', async () => {
    const first = speak(used, 'Yes: thirty days, no card needed.');
    speak(used, 'Something else entirely, and longer, to move the heap. '.repeat(30), 'en-gb+steph');
    expect(Buffer.from(speak(used, 'Yes: thirty days, no card needed.')).equals(Buffer.from(first))).toBe(
      true,
    );
    // Another new instance: `fresh` stays as it started, for the other comparisons.
    const another = await open();
    expect(Buffer.from(speak(another, 'Yes: thirty days, no card needed.')).equals(Buffer.from(first))).toBe(
      true,
    );
  });

  it('answers as many times as asked: nothing accumulates on its stack or in its files', () => {
    const first = speak(used, 'Yes.');
    for (let n = 0; n < 300; n += 1) speak(used, `Answer ${n}.`);
    expect(Buffer.from(speak(used, 'Yes.')).equals(Buffer.from(first))).toBe(true);
    used.reset();
    expect(used.stackPointer()).toBe(fresh.stackPointer());
  });

  it('speaks a long answer in multi-byte characters (more than its 64 KB stack holds)', () => {
    // 22,000 ideographic spaces are 66 KB of UTF-8: the text no longer goes on the stack.
    const text = `Hello.${'\u3000'.repeat(22_000)}Goodbye.`;
    expect(speak(used, text).length).toBeGreaterThan(10_000);
    used.reset();
    expect(differences(bytesOf(used), bytesOf(fresh))).toBe(0);
  });

  it('refuses to answer once its module file has changed on disk, even with its time put back', async () => {
    const instance = await open(copy);
    expect(speak(instance, 'Before.').length).toBeGreaterThan(1000);
    const { atime, mtime } = statSync(copy);
    const bytes = readFileSync(copy);
    bytes.writeUInt8(bytes.at(-1)! ^ 0xff, bytes.length - 1);
    writeFileSync(copy, bytes);
    utimesSync(copy, atime, mtime);
    expect(() => speak(instance, 'After.')).toThrow(/changed on disk/);
  });
});

/** A module of the binary format: the header, then the data section holding `segments`. */
const moduleWith = (...segments: number[][]) => {
  const body = [segments.length, ...segments.flat()];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 11, body.length, ...body]);
};

describe('the data segments of a WebAssembly module', () => {
  it('are the active ones of memory 0, with where they lie in the file', () => {
    const bytes = moduleWith(
      [0x00, 0x41, 0x80, 0x80, 0x04, 0x0b, 3, 1, 2, 3], // active, at 65536
      [0x01, 2, 9, 9], // passive: not copied at instantiation
      [0x02, 0x00, 0x41, 0x10, 0x0b, 1, 7], // active, memory 0 named, at 16
    );
    expect(activeDataSegments(bytes)).toEqual([
      { memoryOffset: 65536, fileOffset: 18, length: 3 },
      { memoryOffset: 16, fileOffset: 31, length: 1 },
    ]);
    expect(bytes.subarray(18, 21)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('of espeak-ng: every byte instantiation writes (a fresh instance holds them)', () => {
    const bytes = readFileSync(WASM);
    const segments = activeDataSegments(bytes);
    expect(segments.reduce((total, s) => total + s.length, 0)).toBeGreaterThan(17_000_000);
    const memory = bytesOf(fresh);
    // The runtime's start-up changes a few pages; the voices' data, most of it, is as written.
    const [voices] = segments.sort((a, b) => b.length - a.length);
    const tail = voices!.length - 1_000_000;
    expect(
      Buffer.from(memory.subarray(voices!.memoryOffset + tail, voices!.memoryOffset + voices!.length)).equals(
        bytes.subarray(voices!.fileOffset + tail, voices!.fileOffset + voices!.length),
      ),
    ).toBe(true);
  });

  it.each([
    [
      'a file that is not WebAssembly',
      new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 1, 0, 0, 0]),
      'no version 1 header',
    ],
    ['a negative offset', moduleWith([0x00, 0x41, 0x7f, 0x0b, 1, 0]), 'negative offset'],
    [
      'an offset computed, not constant',
      moduleWith([0x00, 0x23, 0x00, 0x0b, 1, 0]),
      'offset not an i32.const',
    ],
    ['a second memory', moduleWith([0x02, 0x01, 0x41, 0x00, 0x0b, 1, 0]), 'a memory other than the first'],
    [
      'a segment longer than its section',
      moduleWith([0x00, 0x41, 0x00, 0x0b, 50, 0]),
      'segment past its section',
    ],
    [
      'a section longer than the file',
      new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, 40, 0]),
      'section past the end',
    ],
    [
      'a number that never ends',
      moduleWith([0x00, 0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]),
      'number too long',
    ],
  ])('refuses %s', (_, bytes, why) => {
    // Each for its own reason, not merely for some reason.
    expect(() => activeDataSegments(bytes)).toThrow(
      `not a WebAssembly module this reader knows: ${why} (byte`,
    );
  });
});
