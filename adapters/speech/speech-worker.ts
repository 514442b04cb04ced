// Runs in a worker thread, kept warm between answers (adapters/warm-workers.ts): espeak-ng
// (WASM) speaks each message's text to WAV, LAME (WASM, wasm-media-encoders) encodes MP3. Both
// are synchronous and take tens of milliseconds, so they stay off the event loop. espeak-ng's
// module is compiled once per thread and instantiated per answer (it runs its `main` once per
// instance); the encoder is made once and configured per answer.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import ESpeakNg from 'espeak-ng';
import { createMp3Encoder } from 'wasm-media-encoders';

/** Kept as the engine's: 64 kbit/s mono at espeak-ng's own rate (22,050 Hz). */
const MP3_KBPS = 64;

const wasmPath = createRequire(import.meta.url)
  .resolve('espeak-ng')
  .replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
const compiled = WebAssembly.compile(readFileSync(wasmPath));
const encoder = createMp3Encoder();
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

async function speak(text: string, voice: string): Promise<Uint8Array> {
  const module = await compiled;
  const espeak = await ESpeakNg({
    arguments: ['-w', 'speech.wav', '-v', voice, '--', text],
    print: () => {},
    printErr: () => {},
    instantiateWasm(
      imports: WebAssembly.Imports,
      receive: (i: WebAssembly.Instance, m: WebAssembly.Module) => void,
    ) {
      const instance = new WebAssembly.Instance(module, imports);
      receive(instance, module);
      return instance.exports;
    },
  });
  const { samples, sampleRate } = pcmOf(espeak.FS.readFile('speech.wav') as Uint8Array);
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
