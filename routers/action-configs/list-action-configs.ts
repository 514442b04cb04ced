import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { ActionConfig } from '../../entities/ActionConfig.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigOutput, toActionConfigOutput } from './action-config.schema.ts';

export const listActionConfigs = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/action-configs',
      tags: ['action-configs'],
      summary: 'The deck’s action configs, oldest first',
    },
  })
  .input(deckIdInput)
  .output(z.object({ actionConfigs: z.array(actionConfigOutput) }))
  .query(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const configs = await ctx.em.find(ActionConfig, { deck }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return { actionConfigs: configs.map(toActionConfigOutput) };
  });
