import { SpeechTooLong } from '../ports/speech-engine.ts';
import type { Services } from '../services.ts';

export type SpokenAudio = { ok: true; audioKey: string } | { ok: false; reason: string };

/**
 * Speaks `text` for `organizationId` and stores the MP3 at `key`, within the configured time and
 * size (`SPEECH_MAX_AUDIO_BYTES`: larger audio is refused, never cut). Never throws: speech is a
 * dependency that may fail or hang, and callers decide what a failure means.
 */
export async function speakToObject(
  services: Services,
  organizationId: string,
  text: string,
  voiceId: string,
  key: string,
  /** Gives up early (the instance is stopping); the result is then `ok: false`. */
  cancel?: AbortSignal,
): Promise<SpokenAudio> {
  const { timeoutMs, maxAudioBytes } = services.settings.speech;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = cancel ? AbortSignal.any([timeout, cancel]) : timeout;
  const timedOut = new Promise<never>((_, reject) =>
    signal.addEventListener(
      'abort',
      () => reject(timeout.aborted ? new Error(`speech took longer than ${timeoutMs} ms`) : signal.reason),
      { once: true },
    ),
  );
  try {
    const mp3 = await Promise.race([
      services.speech.synthesize(text, voiceId, { organizationId, maxBytes: maxAudioBytes, signal }),
      timedOut,
    ]);
    // The engines stop at the limit as soon as they can tell; this is what is stored, whichever.
    if (mp3.length > maxAudioBytes) throw new SpeechTooLong(maxAudioBytes);
    await services.storage.put(key, mp3, 'audio/mpeg');
    return { ok: true, audioKey: key };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
