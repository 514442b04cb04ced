import * as intro from '../../domain/intro/intro.ts';
import { introOutput } from '../../domain/intro/intro-output.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const getIntro = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/intro',
      tags: ['intro'],
      summary: 'The deck’s intro',
      description:
        "The deck's spoken introduction: title, script, voice and a playable `audioUrl` once generated; 404 when the deck has none.",
    },
  })
  .input(deckIdInput)
  .output(introOutput)
  .query(({ ctx, input }) => intro.getIntro(ctx, input.deckId));
