import {
  type SpeechEngine,
  SpeechFailed,
  type SpeechRequest,
  SpeechTooLong,
  type Voice,
} from '../../domain/ports/speech-engine.ts';
import { FairPool } from '../fair-pool.ts';
import { moduleBeside, WarmWorkers, WorkerTaskFailed } from '../warm-workers.ts';
import { loadEspeakModule } from './espeak-module.ts';
import type { SpeechTask } from './speech-worker.ts';

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
 * package. Each answer is spoken in a worker thread (espeak-ng and the MP3 encoder are
 * synchronous), at most `concurrency` at a time, shared fairly among organizations (`FairPool`:
 * each waits in its own line, served in turn, and holds at most all threads but one, so another
 * organization's short answer never waits behind a long one); the threads stay warm between
 * answers (loading and compiling espeak-ng and warming the encoder cost more than speaking a
 * short answer) and are started at the first answer, not at start.
 */
export function createLocalSpeechEngine(options: {
  concurrency: number;
  /** One answer, at most (the callers' own deadline is usually shorter). */
  timeoutMs: number;
  previewUrl: (voiceId: string) => string;
}): SpeechEngine & {
  workers(): { started: number; idle: number };
  queue(): { running: number; waiting: number };
  close(): Promise<void>;
} {
  const pool = new FairPool({ concurrency: options.concurrency, perOrganization: options.concurrency - 1 });
  const speakers = new WarmWorkers({ url: moduleBeside(import.meta.url, 'speech-worker') });
  const voices = ACCENTS.flatMap(({ language, accent }) =>
    VARIANTS[language].map((variant) => ({
      id: `${language}+${variant.file}`,
      name: variant.name,
      labels: { accent, gender: variant.gender, language: 'en', use_case: 'narration', engine: 'espeak-ng' },
    })),
  );
  const known = new Set(voices.map((v) => v.id));

  async function speak(text: string, voice: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
    let answer: { ok: boolean; mp3?: Uint8Array; error?: string; tooLong?: boolean };
    try {
      const task: SpeechTask = { text, voice, maxBytes, espeak: await loadEspeakModule() };
      answer = await speakers.run<typeof answer>(task, {
        timeoutMs: options.timeoutMs,
        signal,
        // A refusal for length is an answer like any other: the thread stays warm.
        reusable: (message) => message.ok || message.tooLong === true,
      });
    } catch (error) {
      if (error instanceof WorkerTaskFailed && (error.kind === 'timeout' || error.kind === 'aborted'))
        throw new SpeechFailed('speech took too long');
      throw new SpeechFailed(`espeak-ng failed: ${(error as Error).message}`);
    }
    if (answer.tooLong) throw new SpeechTooLong(maxBytes);
    if (!answer.ok) throw new SpeechFailed(`espeak-ng failed: ${answer.error}`);
    return Buffer.from(answer.mp3!.buffer, answer.mp3!.byteOffset, answer.mp3!.byteLength);
  }

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
    synthesize(text, voiceId, { organizationId, maxBytes, signal }: SpeechRequest) {
      if (!known.has(voiceId)) return Promise.reject(new SpeechFailed(`Unknown voice ${voiceId}`));
      return pool.run(organizationId, () => speak(text, voiceId, maxBytes, signal), signal);
    },
    workers: () => speakers.counts(),
    queue: () => pool.counts(),
    close: () => speakers.close(),
  };
}
