import { z } from 'zod';
import { AUDIO_STATUSES, type Faq } from '../../entities/Faq.ts';
import { downloadUrlFor } from '../object-keys.ts';
import type { Services } from '../services.ts';

/** A FAQ as every route answers it; its events carry it without the signed `audioUrl`. */
export const faqOutput = z
  .object({
    id: z.uuid(),
    deckId: z.uuid(),
    userQuestion: z.string(),
    cannedAnswer: z.string(),
    relatedSlideId: z.uuid().nullable(),
    audioKey: z.string().nullable(),
    audioUrl: z.string().nullable().meta({ description: 'A signed address that plays the spoken answer' }),
    audioStatus: z.enum(AUDIO_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Faq' });

export const faqWithWarningOutput = faqOutput.extend({
  warning: z
    .string()
    .optional()
    .meta({ description: 'Present when the answer could not be spoken; the FAQ is saved' }),
});

export type FaqOutput = z.infer<typeof faqOutput>;
export type FaqWithWarningOutput = z.infer<typeof faqWithWarningOutput>;

export async function toFaqOutput(faq: Faq, services: Services): Promise<FaqOutput> {
  return {
    id: faq.id,
    deckId: faq.deck.id,
    userQuestion: faq.userQuestion,
    cannedAnswer: faq.cannedAnswer,
    relatedSlideId: faq.relatedSlide?.id ?? null,
    audioKey: faq.audioKey ?? null,
    audioUrl: await downloadUrlFor(services, faq.audioKey),
    audioStatus: faq.audioStatus,
    createdAt: faq.createdAt.toISOString(),
    updatedAt: faq.updatedAt.toISOString(),
  };
}

/** What a FAQ event carries: the FAQ without its signed address (it expires; the key stays). */
export function faqEventPayload(faq: FaqOutput): Omit<FaqOutput, 'audioUrl'> {
  const { audioUrl: _signed, ...payload } = faq;
  return payload;
}

export function audioWarning(reason: string): string {
  return `The answer could not be spoken (${reason}); the FAQ was saved without audio`;
}
