import { z } from 'zod';
import { Deck } from '../../entities/Deck.ts';
import { newId } from '../../entities/ids.ts';
import { authedProcedure } from '../trpc.ts';
import { checkVoice } from '../voices/check-voice.ts';
import { deckName, deckOutput, toDeckOutput, voiceId } from './deck.schema.ts';
import { recordDeckEvent } from './deck-events.ts';

export const createDeckInput = z.strictObject({
  name: deckName,
  voiceId: voiceId.nullable().optional(),
});

export const createDeck = authedProcedure
  .meta({
    openapi: { method: 'POST', path: '/decks', tags: ['decks'], summary: 'Create a deck' },
    successStatus: 201,
  })
  .input(createDeckInput)
  .output(deckOutput)
  .mutation(async ({ ctx, input }) => {
    await checkVoice(ctx.services, input.voiceId);
    const deck = ctx.em.create(Deck, {
      id: newId(),
      organization: ctx.auth.organizationId,
      name: input.name,
      voiceId: input.voiceId ?? null,
    });
    // createdAt/updatedAt are set on flush; set them now so the event payload has them.
    deck.createdAt = deck.updatedAt = new Date();
    const output = toDeckOutput(deck);
    recordDeckEvent(ctx.em, ctx.auth, 'deck.created', deck.id, output);
    await ctx.em.flush();
    return output;
  });
