import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { badRequest, conflict } from '../../domain/errors.ts';
import { checkOwnObjectKeys } from '../../domain/object-keys.ts';
import { newId } from '../../entities/ids.ts';
import { Slide } from '../../entities/Slide.ts';
import { authedProcedure } from '../trpc.ts';
import { productDataSchema } from './product-data.schema.ts';
import {
  humanSlideId,
  optionalSlideFields,
  slideFields,
  slideOutput,
  toSlideOutput,
} from './slide.schema.ts';
import { recordSlideEvent } from './slide-events.ts';

export const createSlideInput = z.strictObject({
  deckId: z.uuid(),
  slideId: humanSlideId
    .optional()
    .meta({ description: 'slide-<n>, unique in the deck; assigned when omitted' }),
  ...optionalSlideFields,
  orderIndex: z
    .int()
    .min(0)
    .optional()
    .meta({ description: 'Insert at this position (0…n); later slides move down. Omitted: last.' }),
  slideType: slideFields.slideType.default('standard'),
  productData: productDataSchema.optional().meta({ description: 'Only for product_pricing_v1 slides' }),
});

export const createSlide = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/slides',
      tags: ['slides'],
      summary: 'Add a slide to a deck',
      errorResponses: [409],
    },
    successStatus: 201,
  })
  .input(createSlideInput)
  .output(slideOutput)
  .mutation(async ({ ctx, input }) => {
    if (input.productData && input.slideType !== 'product_pricing_v1') {
      throw badRequest('productData belongs to product_pricing_v1 slides only', [
        { path: ['productData'], message: 'only allowed when slideType is product_pricing_v1' },
      ]);
    }
    await checkOwnObjectKeys(ctx.auth, ctx.services.storage, {
      audioUrl: input.audioUrl,
      heroImg: input.heroImg,
    });

    return ctx.em.transactional(async (em) => {
      // The deck's row lock serialises concurrent creates: each sees the count the last one left.
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const count = await em.count(Slide, { deck });
      const orderIndex = input.orderIndex ?? count;
      if (orderIndex > count) {
        throw badRequest(`orderIndex must be between 0 and ${count} (the deck has ${count} slides)`, [
          { path: ['orderIndex'], message: `must be at most ${count}` },
        ]);
      }
      const slideId = input.slideId ?? (await nextHumanSlideId(em, deck.id));
      if (input.slideId && (await em.count(Slide, { deck, slideId }))) {
        throw conflict(`The deck already has a slide ${slideId}`);
      }
      if (orderIndex < count) {
        await em.execute(
          'update slide set order_index = order_index + 1 where deck_id = ? and order_index >= ?',
          [deck.id, orderIndex],
        );
      }
      const now = new Date();
      const slide = em.create(Slide, {
        id: newId(),
        deck,
        slideId,
        title: input.title ?? null,
        narrationScript: input.narrationScript ?? null,
        bullets: input.bullets ?? [],
        slideContext: input.slideContext ?? null,
        audioUrl: input.audioUrl ?? null,
        heroImg: input.heroImg ?? null,
        orderIndex,
        slideType: input.slideType,
        productData: input.productData ?? null,
        createdAt: now,
        updatedAt: now,
      });
      const output = toSlideOutput(slide);
      recordSlideEvent(em, ctx.auth, 'slide.created', output);
      await em.flush();
      return output;
    });
  });

/** slide-<n+1>, where n is the highest number among the deck's slide ids. */
async function nextHumanSlideId(em: Parameters<typeof findDeck>[0], deckId: string): Promise<string> {
  const [row] = await em.execute<{ n: number | null }[]>(
    `select max(substring(slide_id from 7)::bigint) as n from slide where deck_id = ? and slide_id ~ '^slide-[0-9]+$'`,
    [deckId],
  );
  return `slide-${Number(row?.n ?? 0) + 1}`;
}
