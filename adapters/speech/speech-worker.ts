// Runs in a worker thread, kept warm between answers (adapters/warm-workers.ts): espeak-ng
// (WASM) speaks each message's text to WAV, LAME (WASM, wasm-media-encoders) encodes MP3. Both
// are synchronous and take milliseconds, so they stay off the event loop. Each thread makes one
// espeak-ng instance and one encoder and reuses them for every answer (adapters/speech/espeak-instance.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { createEncoder } from 'wasm-media-encoders';
import { type EspeakInstance, openEspeak } from './espeak-instance.ts';
import type { EspeakModule } from './espeak-module.ts';

/** Kept as the engine's: 64 kbit/s mono at espeak-ng's own rate (22,050 Hz). */
const MP3_KBPS = 64;

// The encoder is compiled synchronously, before the first message: an asynchronous compile (what
// its own loader does) validates on a background thread, and a worker terminated meanwhile
// aborted the whole process (SIGTRAP in `ValidateFunctionsStreamingJob`).
const require = createRequire(import.meta.url);
const encoder = createEncoder(
  'audio/mpeg',
  new WebAssembly.Module(readFileSync(require.resolve('wasm-media-encoders/wasm/mp3'))),
);
/** This thread's one espeak-ng, made from the module of its first message (compiled by the engine). */
let espeak: Promise<EspeakInstance> | undefined;
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

/** The MP3 would be larger than the task's `maxBytes`: refused, the thread stays warm. */
class TooLong extends Error {}

async function speak(
  text: string,
  voice: string,
  maxBytes: number,
  module: EspeakModule,
): Promise<Uint8Array> {
  espeak ??= openEspeak(module);
  const { samples, sampleRate } = pcmOf((await espeak).speak(text, voice));
  if (samples.length === 0) throw new Error('espeak-ng produced no audio');
  // Encoding costs four times what speaking does: audio sure to come out too large (by its length
  // at the constant bit rate, less 1% for the frames' rounding) is refused before it.
  if (((samples.length / sampleRate) * MP3_KBPS * 125 * 99) / 100 > maxBytes) throw new TooLong();
  const mp3Encoder = await encoder;
  mp3Encoder.configure({ channels: 1, sampleRate, bitrate: MP3_KBPS });
  const chunks: Uint8Array[] = [];
  let size = 0;
  const floats = new Float32Array(CHUNK);
  for (let i = 0; i < samples.length; i += CHUNK) {
    const part = samples.subarray(i, i + CHUNK);
    for (let j = 0; j < part.length; j += 1) floats[j] = part[j]! / 32768;
    // The encoder's output is a view of its own memory, overwritten by the next call: copied.
    chunks.push(mp3Encoder.encode([floats.subarray(0, part.length)]).slice());
    size += chunks.at(-1)!.length;
    // configure() frees the encoder and makes another: nothing of a stream stopped here stays.
    if (size > maxBytes) throw new TooLong();
  }
  chunks.push(mp3Encoder.finalize().slice());
  size += chunks.at(-1)!.length;
  if (size > maxBytes) throw new TooLong();
  // One array of its own (not a slice of Node's shared pool), so that it can be moved, not copied.
  const mp3 = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    mp3.set(chunk, at);
    at += chunk.length;
  }
  return mp3;
}

/** An answer to speak, with the module to speak it with (V8 shares it: posting it copies nothing). */
export interface SpeechTask {
  text: string;
  voice: string;
  /** The largest MP3 to answer; past it the answer is `{ ok: false, tooLong: true }`. */
  maxBytes: number;
  espeak: EspeakModule;
}

parentPort!.on('message', async ({ text, voice, maxBytes, espeak: module }: SpeechTask) => {
  try {
    const mp3 = await speak(text, voice, maxBytes, module);
    parentPort!.postMessage({ ok: true, mp3 }, [mp3.buffer as ArrayBuffer]);
  } catch (error) {
    if (error instanceof TooLong) return parentPort!.postMessage({ ok: false, tooLong: true });
    parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
