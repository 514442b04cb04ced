import {
  type SpeechEngine,
  SpeechFailed,
  type SpeechRequest,
  SpeechTooLong,
  type Voice,
} from '../../domain/ports/speech-engine.ts';
import { FairPool } from '../fair-pool.ts';

interface ElevenLabsVoice {
  voice_id: string;
  name: string;
  category?: string;
  preview_url?: string | null;
  labels?: Record<string, string>;
}

/** Categories and use cases that suit a sales presentation. */
const CATEGORIES = new Set(['premade', 'professional', 'cloned', 'generated']);
const USE_CASES = new Set([
  'narration',
  'conversational',
  'informative_educational',
  'news',
  'narrative_story',
  'social_media',
]);

/**
 * ElevenLabs' REST API: `GET /v1/voices`, `POST /v1/text-to-speech/{voice_id}` (MP3). The account
 * allows so many requests at once (its plan's concurrency; past it ElevenLabs answers 429): at
 * most `concurrency` are sent, shared fairly among organizations as the local engine's threads are.
 */
export function createElevenLabsEngine(settings: {
  baseUrl: string;
  apiKey: string;
  modelId: string;
  defaultVoiceId: string;
  concurrency: number;
}): SpeechEngine & { queue(): { running: number; waiting: number } } {
  const pool = new FairPool({ concurrency: settings.concurrency, perOrganization: settings.concurrency - 1 });
  const call = async (path: string, init: RequestInit & { signal?: AbortSignal }) => {
    const response = await fetch(`${settings.baseUrl}${path}`, {
      ...init,
      headers: { 'xi-api-key': settings.apiKey, ...init.headers },
    }).catch((error: Error) => {
      throw new SpeechFailed(
        error.name === 'TimeoutError' || error.name === 'AbortError'
          ? 'ElevenLabs did not answer in time'
          : `ElevenLabs is unreachable: ${error.message}`,
        { cause: error },
      );
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => null)) as {
        detail?: { message?: string } | string;
      } | null;
      const detail = typeof body?.detail === 'string' ? body.detail : body?.detail?.message;
      throw new SpeechFailed(`ElevenLabs answered ${response.status}${detail ? `: ${detail}` : ''}`);
    }
    return response;
  };

  return {
    name: 'elevenlabs',
    defaultVoiceId: settings.defaultVoiceId,
    async listVoices(): Promise<Voice[]> {
      const response = await call('/v1/voices', { method: 'GET', signal: AbortSignal.timeout(10_000) });
      const { voices } = (await response.json()) as { voices: ElevenLabsVoice[] };
      return voices
        .filter((voice) => CATEGORIES.has(voice.category ?? ''))
        .filter((voice) => !voice.labels?.use_case || USE_CASES.has(voice.labels.use_case))
        .filter((voice) => !voice.labels?.language || voice.labels.language === 'en')
        .filter((voice) => Boolean(voice.preview_url))
        .map((voice) => ({
          voice_id: voice.voice_id,
          name: voice.name,
          category: voice.category ?? 'premade',
          preview_url: voice.preview_url!,
          labels: voice.labels ?? {},
        }));
    },
    queue: () => pool.counts(),
    synthesize(text, voiceId, { organizationId, maxBytes, signal }: SpeechRequest) {
      return pool.run(organizationId, () => speak(text, voiceId, maxBytes, signal), signal);
    },
  };

  async function speak(text: string, voiceId: string, maxBytes: number, signal?: AbortSignal) {
    const response = await call(
      `/v1/text-to-speech/${encodeURIComponent(voiceId)}?output_format=mp3_44100_128`,
      {
        method: 'POST',
        signal,
        headers: { 'content-type': 'application/json', accept: 'audio/mpeg' },
        body: JSON.stringify({
          text,
          model_id: settings.modelId,
          voice_settings: { stability: 0.5, similarity_boost: 0.75 },
        }),
      },
    );
    const audio = await readAtMost(response, maxBytes);
    if (audio.length === 0) throw new SpeechFailed('ElevenLabs returned no audio');
    return audio;
  }
}

/** The response's body, refused (`SpeechTooLong`) as soon as it passes `maxBytes`, the rest unread. */
async function readAtMost(response: Response, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  try {
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > maxBytes) throw new SpeechTooLong(maxBytes);
      chunks.push(chunk);
    }
  } catch (error) {
    // Breaking out of the loop cancels the body; an abort while reading is the caller's deadline.
    if (error instanceof SpeechFailed) throw error;
    throw new SpeechFailed(`ElevenLabs' answer broke off: ${(error as Error).message}`, { cause: error });
  }
  return Buffer.concat(chunks, size);
}
