import { z } from 'zod';
import { actionConfigOutput } from '../../domain/action-configs/action-config-output.ts';
import * as actionConfigs from '../../domain/action-configs/action-configs.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listActionConfigs = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/action-configs',
      tags: ['action-configs'],
      summary: 'The deck’s action configs, oldest first',
      description:
        'Every action config of the deck, drafts and published ones, in the order they were created.',
    },
  })
  .input(deckIdInput)
  .output(z.object({ actionConfigs: z.array(actionConfigOutput) }))
  .query(({ ctx, input }) => actionConfigs.listActionConfigs(ctx, input.deckId));
