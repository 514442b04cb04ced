import { deckIdInput } from '../decks/deck.schema.ts';
import { recordEvent } from '../events/record-event.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findIntro } from './find-intro.ts';
import { toIntroOutput } from './intro.schema.ts';

export const deleteIntro = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/decks/{deckId}/intro',
      tags: ['intro'],
      summary: 'Delete the deck’s intro (404 when it has none)',
    },
  })
  .input(deckIdInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    const intro = await findIntro(ctx.em, ctx.auth, input.deckId);
    recordEvent(ctx.em, {
      organizationId: ctx.auth.organizationId,
      aggregateType: 'deck',
      eventType: 'deck.intro_deleted',
      aggregateId: input.deckId,
      deckId: input.deckId,
      payload: { intro: toIntroOutput(intro) },
    });
    ctx.em.remove(intro);
    await ctx.em.flush();
    return { success: true as const };
  });
