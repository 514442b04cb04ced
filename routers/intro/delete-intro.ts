import { recordEvent } from '../../domain/events/record-event.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
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
  .mutation(async ({ ctx, input }) =>
    // Under the deck's lock: of two concurrent deletes one answers 404, and one event is written.
    ctx.em.transactional(async (em) => {
      const intro = await findIntro(em, ctx.auth, input.deckId, { lock: true });
      const { audioUrl: _signed, ...stored } = await toIntroOutput(intro, ctx.services);
      recordEvent(em, ctx.auth, 'deck.intro_deleted', {
        aggregateId: input.deckId,
        deckId: input.deckId,
        payload: { intro: stored },
      });
      em.remove(intro);
      await em.flush();
      return { success: true as const };
    }),
  );
