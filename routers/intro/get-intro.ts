import * as intro from '../../domain/intro/intro.ts';
import { introOutput } from '../../domain/intro/intro-output.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const getIntro = authedProcedure
  .meta({
    access: 'read',
    openapi: { method: 'GET', path: '/decks/{deckId}/intro', tags: ['intro'], summary: 'The deck’s intro' },
  })
  .input(deckIdInput)
  .output(introOutput)
  .query(({ ctx, input }) => intro.getIntro(ctx, input.deckId));
