/** A narration voice, in the interface's shape (op 10). */
export interface Voice {
  voice_id: string;
  name: string;
  category: string;
  preview_url: string;
  labels: Record<string, string>;
}

/**
 * Text to speech. Production: ElevenLabs (ELEVENLABS_API_KEY); zero-config: espeak-ng,
 * bundled as WASM. Both produce MP3.
 */
export interface SpeechEngine {
  readonly name: 'elevenlabs' | 'local';
  /** The voice used when a deck has none. */
  readonly defaultVoiceId: string;
  /** The voices suited to sales presentations (already curated). */
  listVoices(): Promise<Voice[]>;
  /** MP3 bytes of `text` spoken with `voiceId`; gives up when `signal` aborts. */
  synthesize(text: string, voiceId: string, signal?: AbortSignal): Promise<Buffer>;
  /** Stops what it keeps running (warm worker threads), at shutdown. */
  close?(): Promise<void>;
}

export class SpeechFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SpeechFailed';
  }
}
