/** A narration voice, in the interface's shape (op 10). */
export interface Voice {
  voice_id: string;
  name: string;
  category: string;
  preview_url: string;
  labels: Record<string, string>;
}

/** What one synthesis is for, and its bounds. */
export interface SpeechRequest {
  /** Whose answer it is: the engine shares its threads or requests among organizations by this. */
  organizationId: string;
  /** Audio larger than this is refused (`SpeechTooLong`), as soon as the engine can tell. */
  maxBytes: number;
  /** Gives up when it aborts, waiting or speaking. */
  signal?: AbortSignal;
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
  /** MP3 bytes of `text` spoken with `voiceId`, at most `request.maxBytes` of them. */
  synthesize(text: string, voiceId: string, request: SpeechRequest): Promise<Buffer>;
  /** Stops what it keeps running (warm worker threads), at shutdown. */
  close?(): Promise<void>;
}

export class SpeechFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SpeechFailed';
  }
}

/** The audio would be larger than the request's `maxBytes`: the text is too long to speak. */
export class SpeechTooLong extends SpeechFailed {
  constructor(maxBytes: number) {
    super(`the audio would be larger than ${maxBytes} bytes, the most one text may make: shorten it`);
    this.name = 'SpeechTooLong';
  }
}
