import type { Services } from '../services.ts';

export type SpokenAudio = { ok: true; audioKey: string } | { ok: false; reason: string };

/**
 * Speaks `text` and stores the MP3 at `key`, within the configured time. Never throws:
 * speech is a dependency that may fail or hang, and callers decide what a failure means.
 */
export async function speakToObject(
  services: Services,
  text: string,
  voiceId: string,
  key: string,
  /** Gives up early (the instance is stopping); the result is then `ok: false`. */
  cancel?: AbortSignal,
): Promise<SpokenAudio> {
  const timeoutMs = services.settings.speech.timeoutMs;
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
    const mp3 = await Promise.race([services.speech.synthesize(text, voiceId, signal), timedOut]);
    await services.storage.put(key, mp3, 'audio/mpeg');
    return { ok: true, audioKey: key };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
