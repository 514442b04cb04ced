import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import { type SpeechEngine, SpeechFailed, type Voice } from '../../domain/ports/speech-engine.ts';

/** Accents × variants of espeak-ng that sound like a presenter (no robots, whispers or cartoons). */
const ACCENTS = [
  { language: 'en-us', accent: 'american' },
  { language: 'en-gb', accent: 'british' },
] as const;
const VARIANTS: Record<
  (typeof ACCENTS)[number]['language'],
  { file: string; name: string; gender: 'female' | 'male' }[]
> = {
  'en-us': [
    { file: 'Annie', name: 'Annie', gender: 'female' },
    { file: 'linda', name: 'Linda', gender: 'female' },
    { file: 'f3', name: 'Grace', gender: 'female' },
    { file: 'Andy', name: 'Andy', gender: 'male' },
    { file: 'david', name: 'David', gender: 'male' },
    { file: 'm3', name: 'James', gender: 'male' },
  ],
  'en-gb': [
    { file: 'steph', name: 'Stephanie', gender: 'female' },
    { file: 'f4', name: 'Olivia', gender: 'female' },
    { file: 'robert', name: 'Robert', gender: 'male' },
    { file: 'm1', name: 'Oliver', gender: 'male' },
  ],
};

/**
 * espeak-ng compiled to WASM (npm), so a fresh install speaks with no account and no system
 * package. Each synthesis runs in a worker thread (espeak-ng and the MP3 encoder are
 * synchronous), at most `concurrency` at a time.
 */
export function createLocalSpeechEngine(options: {
  concurrency: number;
  previewUrl: (voiceId: string) => string;
}): SpeechEngine {
  const queue = new PQueue({ concurrency: options.concurrency });
  const workerUrl = new URL('./speech-worker.ts', import.meta.url);
  const voices = ACCENTS.flatMap(({ language, accent }) =>
    VARIANTS[language].map((variant) => ({
      id: `${language}+${variant.file}`,
      name: variant.name,
      labels: { accent, gender: variant.gender, language: 'en', use_case: 'narration', engine: 'espeak-ng' },
    })),
  );
  const known = new Set(voices.map((v) => v.id));

  return {
    name: 'local',
    defaultVoiceId: 'en-us+Annie',
    async listVoices(): Promise<Voice[]> {
      return voices.map((v) => ({
        voice_id: v.id,
        name: v.name,
        category: 'local',
        preview_url: options.previewUrl(v.id),
        labels: v.labels,
      }));
    },
    synthesize(text, voiceId, signal) {
      if (!known.has(voiceId)) return Promise.reject(new SpeechFailed(`Unknown voice ${voiceId}`));
      return queue.add(
        ({ signal: queued }) =>
          new Promise<Buffer>((resolve, reject) => {
            const worker = new Worker(workerUrl, { workerData: { text, voice: voiceId } });
            const abort = () => {
              void worker.terminate();
              reject(new SpeechFailed('speech took too long'));
            };
            queued?.addEventListener('abort', abort, { once: true });
            worker.once('message', (message: { ok: boolean; mp3?: Uint8Array; error?: string }) => {
              queued?.removeEventListener('abort', abort);
              void worker.terminate();
              if (message.ok) resolve(Buffer.from(message.mp3!));
              else reject(new SpeechFailed(`espeak-ng failed: ${message.error}`));
            });
            worker.once('error', (error) => reject(new SpeechFailed(`espeak-ng failed: ${error.message}`)));
          }),
        { signal },
      ) as Promise<Buffer>;
    },
  };
}
