import * as intro from '../../domain/intro/intro.ts';
import { introOutput } from '../../domain/intro/intro-output.ts';
import { authedProcedure } from '../trpc.ts';
import { introInput } from './intro.schema.ts';

export const saveIntro = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/intro',
      tags: ['intro'],
      summary: 'Create or replace the deck’s intro',
      description:
        'Creates the intro or replaces it whole: a `script` (and optional `title` and `voiceId`); its audio is made by the next generation job. Write access; event `deck.intro_saved`.',
    },
  })
  .input(introInput)
  .output(introOutput)
  .mutation(({ ctx, input }) => intro.saveIntro(ctx, input));
