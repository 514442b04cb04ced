// Runs in a worker thread: espeak-ng (WASM) speaks to WAV, lamejs encodes MP3. Both are
// synchronous and take tens to hundreds of milliseconds, so they stay off the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { Mp3Encoder } from '@breezystack/lamejs';
import ESpeakNg from 'espeak-ng';

const { text, voice } = workerData as { text: string; voice: string };

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

try {
  const espeak = await ESpeakNg({
    arguments: ['-w', 'speech.wav', '-v', voice, '--', text],
    print: () => {},
    printErr: () => {},
  });
  const { samples, sampleRate } = pcmOf(espeak.FS.readFile('speech.wav') as Uint8Array);
  if (samples.length === 0) throw new Error('espeak-ng produced no audio');
  const encoder = new Mp3Encoder(1, sampleRate, 64);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < samples.length; i += 1152 * 16) {
    chunks.push(encoder.encodeBuffer(samples.subarray(i, i + 1152 * 16)));
  }
  chunks.push(encoder.flush());
  const mp3 = Buffer.concat(chunks.map((c) => Buffer.from(c)));
  parentPort!.postMessage({ ok: true, mp3 });
} catch (error) {
  parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
}
