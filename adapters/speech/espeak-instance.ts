import { fstatSync, readSync } from 'node:fs';
import ESpeakNg from 'espeak-ng';
import type { EspeakModule } from './espeak-module.ts';
import { identityOf, sameFile } from './file-identity.ts';

/** Pages compared when the instance's initial state is taken (see `openEspeak`). */
const PAGE = 4096;

interface EspeakExports {
  memory: WebAssembly.Memory;
  stackSave(): number;
  stackRestore(pointer: number): void;
  stackAlloc(bytes: number): number;
}

export interface EspeakInstance {
  /** Speaks `text` with `voice` on the instance reset to its initial state: the WAV it wrote. */
  speak(text: string, voice: string): Uint8Array;
  /** Puts the instance back in the state it had right after start-up (before each answer). */
  reset(): void;
  /** The instance's memory and stack pointer (tests compare them with a fresh instance's). */
  readonly memory: WebAssembly.Memory;
  stackPointer(): number;
}

/**
 * One espeak-ng (WASM) instance of `espeak`, reset before each answer to exactly its state right
 * after start-up, so that nothing of one answer reaches the next.
 *
 * That state is not kept as a copy (17.5 MB a thread, most of it the voices' data): it is what
 * instantiation writes (the module's data segments, read back from its file on each reset; the
 * kernel's page cache holds them once for every thread) plus the few pages the runtime's start-up
 * changed (kept). A fresh instance per answer instead allocated 32 MB that only a garbage
 * collection released, and took 7× longer.
 */
export async function openEspeak(espeak: EspeakModule): Promise<EspeakInstance> {
  const { module, file, segments, identity } = espeak;
  let exports: EspeakExports | undefined;
  const runtime = await ESpeakNg({
    arguments: [],
    noInitialRun: true,
    print: () => {},
    printErr: () => {},
    instantiateWasm(imports, receive) {
      const instance = new WebAssembly.Instance(module, imports);
      exports = instance.exports as unknown as EspeakExports;
      receive(instance, module);
      return instance.exports;
    },
  });
  const { memory } = exports!;
  const stackTop = exports!.stackSave();

  // The initial state: everything up to `end` (past it, zeros) is the data segments, zeros
  // between them, and the pages start-up changed, found here by comparing, page by page.
  const view = new Uint8Array(memory.buffer);
  const segmentsEnd = Math.max(0, ...segments.map((s) => s.memoryOffset + s.length));
  const end = Math.min(view.length, roundUp(Math.max(lastNonZero(view), segmentsEnd)));
  const zeros = gapsBetween(segments, end);
  const changed: { at: number; bytes: Uint8Array }[] = [];
  const expected = new Uint8Array(PAGE);
  for (let at = 0; at < end; at += PAGE) {
    expected.fill(0);
    for (const s of segments) {
      const from = Math.max(at, s.memoryOffset);
      const to = Math.min(at + PAGE, s.memoryOffset + s.length);
      if (from < to) readExactly(file, expected, from - at, to - from, s.fileOffset + from - s.memoryOffset);
    }
    const page = view.subarray(at, at + PAGE);
    if (!Buffer.from(page.buffer, page.byteOffset, page.length).equals(expected))
      changed.push({ at, bytes: page.slice() });
  }

  function reset() {
    const unchanged = () => {
      if (!sameFile(identityOf(fstatSync(file)), identity))
        throw new Error("espeak-ng's module file changed on disk since this instance was made");
    };
    unchanged();
    const view = new Uint8Array(memory.buffer);
    // What an answer wrote past the initial state (up to its last non-zero byte: zeroing all
    // 32 MB would make every page resident, +16 MB a thread).
    view.fill(0, end, Math.max(end, lastNonZero(view)));
    for (const [from, to] of zeros) view.fill(0, from, to);
    for (const s of segments) readExactly(file, view, s.memoryOffset, s.length, s.fileOffset);
    // A write to the file during the reads would have left some of it in memory.
    unchanged();
    for (const page of changed) view.set(page.bytes, page.at);
    // Memory and stack pointer are all of an instance's state that `main` changes (its other
    // globals are set once, at instantiation).
    exports!.stackRestore(stackTop);
  }

  return {
    memory,
    reset,
    stackPointer: () => exports!.stackSave(),
    speak(text, voice) {
      reset();
      // The text goes in a file of the runtime's own (its memory is JavaScript's, not the
      // instance's), not in the arguments: those are on the instance's 64 KB stack, which a long
      // answer in multi-byte characters overflowed (20,000 × "é" is 40 KB).
      runtime.FS.writeFile('text.txt', text);
      const args = ['-w', 'speech.wav', '-v', voice, '-f', 'text.txt'];
      const pointers = ['espeak-ng', ...args].map((arg) => {
        const encoded = new TextEncoder().encode(`${arg}\0`);
        const at = exports!.stackAlloc(encoded.length);
        new Uint8Array(memory.buffer).set(encoded, at);
        return at;
      });
      const argv = exports!.stackAlloc((pointers.length + 1) * 4);
      new Uint32Array(memory.buffer, argv, pointers.length + 1).set([...pointers, 0]);
      try {
        runtime._main(pointers.length, argv);
      } catch (error) {
        // `exit()` inside main ends it by throwing; anything else is a failure (the thread is replaced).
        if ((error as { name?: unknown } | null)?.name !== 'ExitStatus') throw error;
      }
      const wav = runtime.FS.readFile('speech.wav');
      runtime.FS.unlink('speech.wav');
      runtime.FS.unlink('text.txt');
      return wav;
    },
  };
}

/** Reads `length` bytes of `file` at `position` into `into` at `offset` (a read may return fewer). */
function readExactly(file: number, into: Uint8Array, offset: number, length: number, position: number) {
  for (let done = 0; done < length; ) {
    const read = readSync(file, into, offset + done, length - done, position + done);
    if (read === 0) throw new Error("espeak-ng's module file is shorter than its data segments");
    done += read;
  }
}

/** The ranges below `end` that no segment covers: zeros in a fresh instance. */
function gapsBetween(segments: { memoryOffset: number; length: number }[], end: number): [number, number][] {
  const gaps: [number, number][] = [];
  let at = 0;
  for (const s of [...segments].sort((a, b) => a.memoryOffset - b.memoryOffset)) {
    if (s.memoryOffset > at) gaps.push([at, Math.min(s.memoryOffset, end)]);
    at = Math.max(at, s.memoryOffset + s.length);
  }
  if (at < end) gaps.push([at, end]);
  return gaps.filter(([from, to]) => from < to);
}

const roundUp = (bytes: number) => Math.ceil(bytes / PAGE) * PAGE;

/** The end of `memory`'s last non-zero word: above it, all is still zero (~1.4 ms for 32 MB). */
function lastNonZero(memory: Uint8Array): number {
  const words = new BigUint64Array(memory.buffer, 0, memory.byteLength >>> 3);
  let at = words.length;
  while (at > 0 && words[at - 1] === 0n) at -= 1;
  return at << 3;
}
