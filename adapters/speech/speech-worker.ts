// Runs in a worker thread, kept warm between answers (adapters/warm-workers.ts): espeak-ng
// (WASM) speaks each message's text to WAV, LAME (WASM, wasm-media-encoders) encodes MP3. Both
// are synchronous and take milliseconds, so they stay off the event loop. Each thread makes one
// espeak-ng instance and one encoder and reuses them for every answer (see `runEspeak`).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import ESpeakNg from 'espeak-ng';
import { createEncoder } from 'wasm-media-encoders';

/** Kept as the engine's: 64 kbit/s mono at espeak-ng's own rate (22,050 Hz). */
const MP3_KBPS = 64;

// Both modules are compiled synchronously, here, before the first message: an asynchronous or
// streaming compile (what `WebAssembly.compile` and the encoder's own loader do) leaves V8
// validating on a background thread, and a worker terminated meanwhile (a timeout, the service
// closing) aborted the whole process (SIGTRAP in `ValidateFunctionsStreamingJob`).
const require = createRequire(import.meta.url);
const espeakModule = new WebAssembly.Module(
  readFileSync(require.resolve('espeak-ng').replace(/espeak-ng\.js$/, 'espeak-ng.wasm')),
);
const encoder = createEncoder(
  'audio/mpeg',
  new WebAssembly.Module(readFileSync(require.resolve('wasm-media-encoders/wasm/mp3'))),
);
/** Samples given to the encoder at once. */
const CHUNK = 16_384;

function pcmOf(wav: Uint8Array): { samples: Int16Array; sampleRate: number } {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  let sampleRate = 22050;
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = String.fromCharCode(...wav.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === 'fmt ') sampleRate = view.getUint32(offset + 12, true);
    if (id === 'data') {
      // espeak-ng may leave the size unset (0x7fffffff…) when writing to a file: take the rest.
      const end = Math.min(wav.length, offset + 8 + size);
      const bytes = wav.slice(offset + 8, end - ((end - offset - 8) % 2));
      return { samples: new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2), sampleRate };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('espeak-ng produced no audio');
}

/**
 * The one espeak-ng of this thread: its runtime initialised (constructors run), `main` not yet.
 * Its memory at that point is kept (up to its last non-zero byte, 17.5 MB of 32 MB) so that
 * every answer starts from exactly that state: a fresh instance per answer allocated 32 MB that
 * only a garbage collection released (300 MB for 50 answers on two threads) and took 7× longer.
 */
const espeak = (async () => {
  let exports: EspeakExports | undefined;
  const runtime = await ESpeakNg({
    arguments: [],
    noInitialRun: true,
    print: () => {},
    printErr: () => {},
    instantiateWasm(imports, receive) {
      const instance = new WebAssembly.Instance(espeakModule, imports);
      exports = instance.exports as unknown as EspeakExports;
      receive(instance, espeakModule);
      return instance.exports;
    },
  });
  const memory = new Uint8Array(exports!.memory.buffer);
  let end = memory.length;
  while (end > 0 && memory[end - 1] === 0) end -= 1;
  return { runtime, exports: exports!, initial: memory.slice(0, end), stackTop: exports!.stackSave() };
})();

interface EspeakExports {
  memory: WebAssembly.Memory;
  stackSave(): number;
  stackRestore(pointer: number): void;
  stackAlloc(bytes: number): number;
}

/** Runs espeak-ng's `main` with `args` on the instance reset to its initial state; answers the WAV. */
async function runEspeak(args: string[]): Promise<Uint8Array> {
  const { runtime, exports, initial, stackTop } = await espeak;
  // Memory and stack pointer are all of an instance's state that `main` changes (its other
  // globals are set once, at instantiation); what `main` may have grown stays, zeroed. Only up
  // to the last byte ever written: zeroing the rest would make all 32 MB resident (+16 MB a thread).
  const memory = new Uint8Array(exports.memory.buffer);
  const end = lastNonZero(memory);
  memory.set(initial);
  memory.fill(0, initial.length, end);
  exports.stackRestore(stackTop);
  const pointers = ['espeak-ng', ...args].map((arg) => {
    const bytes = new TextEncoder().encode(`${arg}\0`);
    const at = exports.stackAlloc(bytes.length);
    new Uint8Array(exports.memory.buffer).set(bytes, at);
    return at;
  });
  const argv = exports.stackAlloc((pointers.length + 1) * 4);
  new Uint32Array(exports.memory.buffer, argv, pointers.length + 1).set([...pointers, 0]);
  try {
    runtime._main(pointers.length, argv);
  } catch (error) {
    // `exit()` inside main ends it by throwing; anything else is a failure (the thread is replaced).
    if ((error as { name?: unknown } | null)?.name !== 'ExitStatus') throw error;
  }
  const wav = runtime.FS.readFile('speech.wav');
  runtime.FS.unlink('speech.wav');
  return wav;
}

/** The end of `memory`'s last non-zero word: above it, all is still zero (~1.4 ms for 32 MB). */
function lastNonZero(memory: Uint8Array): number {
  const words = new BigUint64Array(memory.buffer, 0, memory.byteLength >>> 3);
  let at = words.length;
  while (at > 0 && words[at - 1] === 0n) at -= 1;
  return at << 3;
}

async function speak(text: string, voice: string): Promise<Uint8Array> {
  const { samples, sampleRate } = pcmOf(await runEspeak(['-w', 'speech.wav', '-v', voice, '--', text]));
  if (samples.length === 0) throw new Error('espeak-ng produced no audio');
  const mp3Encoder = await encoder;
  mp3Encoder.configure({ channels: 1, sampleRate, bitrate: MP3_KBPS });
  const chunks: Uint8Array[] = [];
  const floats = new Float32Array(CHUNK);
  for (let i = 0; i < samples.length; i += CHUNK) {
    const part = samples.subarray(i, i + CHUNK);
    for (let j = 0; j < part.length; j += 1) floats[j] = part[j]! / 32768;
    // The encoder's output is a view of its own memory, overwritten by the next call: copied.
    chunks.push(mp3Encoder.encode([floats.subarray(0, part.length)]).slice());
  }
  chunks.push(mp3Encoder.finalize().slice());
  // One array of its own (not a slice of Node's shared pool), so that it can be moved, not copied.
  const mp3 = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    mp3.set(chunk, at);
    at += chunk.length;
  }
  return mp3;
}

parentPort!.on('message', async ({ text, voice }: { text: string; voice: string }) => {
  try {
    const mp3 = await speak(text, voice);
    parentPort!.postMessage({ ok: true, mp3 }, [mp3.buffer as ArrayBuffer]);
  } catch (error) {
    parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
