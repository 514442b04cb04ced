import { z } from 'zod';
import type { DeckIntro } from '../../entities/DeckIntro.ts';
import { downloadUrlFor } from '../object-keys.ts';
import type { Services } from '../services.ts';

/** A deck's intro as the routes answer it; its events carry it without the signed `audioUrl`. */
export const introOutput = z
  .object({
    deckId: z.uuid(),
    title: z.string().nullable(),
    script: z.string(),
    voiceId: z.string().nullable(),
    audioKey: z
      .string()
      .nullable()
      .meta({ description: 'Object-storage key of the spoken intro, once generated' }),
    audioUrl: z.string().nullable().meta({ description: 'Address to fetch the audio from, once generated' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'DeckIntro' });

export type IntroOutput = z.infer<typeof introOutput>;

export async function toIntroOutput(intro: DeckIntro, services: Services): Promise<IntroOutput> {
  return {
    deckId: intro.deck.id,
    title: intro.title ?? null,
    script: intro.script,
    voiceId: intro.voiceId ?? null,
    audioKey: intro.audioKey ?? null,
    audioUrl: await downloadUrlFor(services, intro.audioKey),
    createdAt: intro.createdAt.toISOString(),
    updatedAt: intro.updatedAt.toISOString(),
  };
}

/** What an intro event carries: the intro without its signed address. */
export function introEventPayload(intro: IntroOutput): { intro: Omit<IntroOutput, 'audioUrl'> } {
  const { audioUrl: _signed, ...stored } = intro;
  return { intro: stored };
}
