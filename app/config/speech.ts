import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** Which engine speaks (espeak-ng or ElevenLabs), its bounds, and the worker that narrates decks. */
export const speech = configSection({
  title: 'Speech and narration',
  variables: {
    ELEVENLABS_API_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Speak with ElevenLabs; unset: espeak-ng, built in' }),
    ELEVENLABS_BASE_URL: z
      .url()
      .default('https://api.elevenlabs.io')
      .meta({ description: 'ElevenLabs API address' }),
    ELEVENLABS_MODEL_ID: z
      .string()
      .min(1)
      .default('eleven_multilingual_v2')
      .meta({ description: 'ElevenLabs model that speaks' }),
    ELEVENLABS_DEFAULT_VOICE_ID: z
      .string()
      .min(1)
      .default('21m00Tcm4TlvDq8ikWAM')
      .meta({ description: 'ElevenLabs voice of decks and intros that name none' }),
    SPEECH_TIMEOUT_MS: integer(100).default(15_000).meta({
      description:
        'Longest synthesis of one text: past it a FAQ is saved without audio and a narration job fails',
    }),
    SPEECH_CONCURRENCY: integer(1, 32).default(2).meta({
      description:
        'Syntheses at once: espeak-ng worker threads, or requests to ElevenLabs (at most its plan allows at once). Shared among organizations in turn; one organization holds at most all but one (with 1, that one: the others wait their turn)',
    }),
    SPEECH_MAX_AUDIO_BYTES: integer(16_384)
      .default(6 * 1024 * 1024)
      .meta({
        description:
          'Largest MP3 one FAQ answer, slide script or intro may make (6 MiB: 13 minutes of espeak-ng, 6.5 of ElevenLabs); a longer text is not spoken: the FAQ is saved without audio, with a warning, and a narration job fails',
      }),
    VOICES_CACHE_SECONDS: integer(0).default(3600).meta({
      description:
        'How long the voice list is kept before the engine is asked again (when it fails, the last list is served)',
    }),
    GENERATION_ENABLED: booleanFlag
      .default(true)
      .meta({ description: 'Whether this instance runs the narration worker' }),
    GENERATION_POLL_INTERVAL_MS: integer(10).default(1000).meta({
      description:
        "How often the narration worker looks for jobs it was not nudged about (another instance's, or left by a dead one)",
    }),
    GENERATION_CONCURRENCY: integer(1, 16)
      .default(2)
      .meta({ description: 'Narration jobs one instance runs at once' }),
    GENERATION_LEASE_SECONDS: integer(1, 3600).default(120).meta({
      description:
        'How long a narration job stays claimed without news from its instance (renewed after every slide): after it, a dead instance’s job goes on elsewhere',
    }),
  },
  settings: (env) => ({
    speech: {
      elevenLabs: env.ELEVENLABS_API_KEY
        ? {
            apiKey: env.ELEVENLABS_API_KEY,
            baseUrl: env.ELEVENLABS_BASE_URL.replace(/\/$/, ''),
            modelId: env.ELEVENLABS_MODEL_ID,
            defaultVoiceId: env.ELEVENLABS_DEFAULT_VOICE_ID,
          }
        : null,
      timeoutMs: env.SPEECH_TIMEOUT_MS,
      concurrency: env.SPEECH_CONCURRENCY,
      maxAudioBytes: env.SPEECH_MAX_AUDIO_BYTES,
      voicesCacheMs: env.VOICES_CACHE_SECONDS * 1000,
    },
    generation: {
      /** Whether this instance runs the narration generation worker. */
      enabled: env.GENERATION_ENABLED,
      pollIntervalMs: env.GENERATION_POLL_INTERVAL_MS,
      concurrency: env.GENERATION_CONCURRENCY,
      leaseSeconds: env.GENERATION_LEASE_SECONDS,
    },
  }),
});
