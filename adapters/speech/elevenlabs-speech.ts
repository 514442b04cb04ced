import { type SpeechEngine, SpeechFailed, type Voice } from '../../domain/ports/speech-engine.ts';

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

/** ElevenLabs' REST API: `GET /v1/voices`, `POST /v1/text-to-speech/{voice_id}` (MP3). */
export function createElevenLabsEngine(settings: {
  baseUrl: string;
  apiKey: string;
  modelId: string;
  defaultVoiceId: string;
}): SpeechEngine {
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
    async synthesize(text, voiceId, signal) {
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
      const audio = Buffer.from(await response.arrayBuffer());
      if (audio.length === 0) throw new SpeechFailed('ElevenLabs returned no audio');
      return audio;
    },
  };
}
