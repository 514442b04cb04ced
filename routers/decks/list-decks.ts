import { z } from 'zod';
import { Deck } from '../../entities/Deck.ts';
import { authedProcedure } from '../trpc.ts';
import { deckOutput, toDeckOutput } from './deck.schema.ts';

export const listDecks = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/decks', tags: ['decks'], summary: "List the organization's decks" },
  })
  .input(z.object({}))
  .output(z.object({ decks: z.array(deckOutput) }))
  .query(async ({ ctx }) => {
    const decks = await ctx.em.find(
      Deck,
      { organization: ctx.auth.organizationId },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    );
    return { decks: decks.map(toDeckOutput) };
  });
