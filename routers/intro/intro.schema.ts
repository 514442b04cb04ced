import { z } from 'zod';
import { downloadUrlFor } from '../../domain/object-keys.ts';
import type { DeckIntro } from '../../entities/DeckIntro.ts';
import type { Services } from '../../server/services.ts';
import { voiceId } from '../decks/deck.schema.ts';
import { text } from '../shared.schema.ts';

export const introInput = z.strictObject({
  deckId: z.uuid(),
  title: text().trim().max(200).nullable().optional(),
  script: text().trim().min(1, 'must not be empty').max(20_000),
  voiceId: voiceId.nullable().optional(),
});

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
