import { deckIdInput } from '../decks/deck.schema.ts';
import { recordDeckEvent } from '../decks/deck-events.ts';
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
    const { audioUrl: _signed, ...stored } = await toIntroOutput(intro, ctx.services);
    recordDeckEvent(ctx.em, ctx.auth, 'deck.intro_deleted', input.deckId, { intro: stored });
    ctx.em.remove(intro);
    await ctx.em.flush();
    return { success: true as const };
  });
