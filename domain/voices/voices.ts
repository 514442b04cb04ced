import type { Auth } from '../context.ts';
import { DomainError } from '../errors.ts';
import type { Services } from '../services.ts';

/** The voices suited to presentations (the provider's list, cached by the speech adapter). */
export async function listVoices(ctx: { services: Services }) {
  try {
    return { voices: await ctx.services.voices.list() };
  } catch (error) {
    // No Retry-After: when the provider is back is not known.
    throw new DomainError('unavailable', `The voice provider is unavailable: ${(error as Error).message}`);
  }
}

const previews = new Map<string, Promise<Buffer>>();

/**
 * A short sample of a local voice, made once per voice and kept in memory. (ElevenLabs
 * voices come with their own preview addresses.) Null when the voice is not in the list.
 */
export async function previewVoice(
  ctx: { services: Services; auth: Auth },
  voiceId: string,
): Promise<Buffer | null> {
  const { services, auth } = ctx;
  const voice = (await services.voices.list()).find((v) => v.voice_id === voiceId);
  if (!voice) return null;
  let preview = previews.get(voiceId);
  if (!preview) {
    preview = services.speech.synthesize(
      `Hello, I'm ${voice.name}. I'll walk your prospects through this deck.`,
      voiceId,
      // Shared by every organization once made; made on the first asker's share of the engine.
      { organizationId: auth.organizationId, maxBytes: services.settings.speech.maxAudioBytes },
    );
    preview.catch(() => previews.delete(voiceId));
    previews.set(voiceId, preview);
  }
  return preview;
}
