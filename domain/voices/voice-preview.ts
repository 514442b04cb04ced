import type { Services } from '../../server/services.ts';

const previews = new Map<string, Promise<Buffer>>();

/**
 * A short sample of a local voice, made once per voice and kept in memory. (ElevenLabs
 * voices come with their own preview addresses.) Null when the voice is not in the list.
 */
export async function voicePreview(services: Services, voiceId: string): Promise<Buffer | null> {
  const voice = (await services.voices.list()).find((v) => v.voice_id === voiceId);
  if (!voice) return null;
  let preview = previews.get(voiceId);
  if (!preview) {
    preview = services.speech.synthesize(
      `Hello, I'm ${voice.name}. I'll walk your prospects through this deck.`,
      voiceId,
    );
    preview.catch(() => previews.delete(voiceId));
    previews.set(voiceId, preview);
  }
  return preview;
}
