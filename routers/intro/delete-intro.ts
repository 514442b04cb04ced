import * as intro from '../../domain/intro/intro.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const deleteIntro = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/decks/{deckId}/intro',
      tags: ['intro'],
      summary: 'Delete the deck’s intro (404 when it has none)',
      description:
        "Removes the deck's intro and its audio; 404 when the deck has none. Write access; event `deck.intro_deleted`.",
    },
  })
  .input(deckIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => intro.deleteIntro(ctx, input.deckId));
