import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findIntro } from './find-intro.ts';
import { introOutput, toIntroOutput } from './intro.schema.ts';

export const getIntro = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/decks/{deckId}/intro', tags: ['intro'], summary: 'The deck’s intro' },
  })
  .input(deckIdInput)
  .output(introOutput)
  .query(async ({ ctx, input }) =>
    toIntroOutput(await findIntro(ctx.em, ctx.auth, input.deckId), ctx.services),
  );
