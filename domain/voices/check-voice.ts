import { badRequest } from '../errors.ts';
import type { Services } from '../services.ts';

/**
 * A voice named in a request must be one of the voice list. When the list cannot be had
 * (provider down, nothing cached), the voice is accepted: generation reports it if it is wrong.
 */
export async function checkVoice(
  services: Services,
  voiceId: string | null | undefined,
  field = 'voiceId',
): Promise<void> {
  if (!voiceId) return;
  const voices = await services.voices.list().catch(() => null);
  if (voices && !voices.some((voice) => voice.voice_id === voiceId)) {
    throw badRequest(`Voice ${voiceId} is not in the voice list (GET /api/voices/list)`, [
      { path: [field], message: 'must be the voice_id of a listed voice' },
    ]);
  }
}
