import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { ActionConfig } from '../../entities/ActionConfig.ts';
import { newId } from '../../entities/ids.ts';
import { authedProcedure } from '../trpc.ts';
import {
  actionConfigFields,
  actionConfigOutput,
  assertMarkdownSize,
  toActionConfigOutput,
} from './action-config.schema.ts';
import { recordActionConfigEvent } from './action-config-events.ts';

export const createActionConfigInput = z.strictObject({
  deckId: z.uuid(),
  actionType: actionConfigFields.actionType,
  templateMarkdown: actionConfigFields.templateMarkdown,
  disclosuresMarkdown: actionConfigFields.disclosuresMarkdown.optional(),
  requirementsJson: actionConfigFields.requirementsJson.optional(),
  repName: actionConfigFields.repName.optional(),
  status: actionConfigFields.status.default('draft'),
});

export const createActionConfig = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/action-configs',
      tags: ['action-configs'],
      summary: 'Create an action config (a markdown template such as a letter of intent)',
    },
    successStatus: 201,
  })
  .input(createActionConfigInput)
  .output(actionConfigOutput)
  .mutation(async ({ ctx, input }) => {
    assertMarkdownSize({
      templateMarkdown: input.templateMarkdown,
      disclosuresMarkdown: input.disclosuresMarkdown,
    });
    return ctx.em.transactional(async (em) => {
      // Locked: a deck deleted meanwhile is a 404, not a foreign-key violation.
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const now = new Date();
      const config = em.create(ActionConfig, {
        id: newId(),
        deck,
        actionType: input.actionType,
        templateMarkdown: input.templateMarkdown,
        disclosuresMarkdown: input.disclosuresMarkdown ?? null,
        requirementsJson: input.requirementsJson ?? null,
        repName: input.repName ?? null,
        status: input.status,
        publishedAt: input.status === 'published' ? now : null,
        createdAt: now,
        updatedAt: now,
      });
      const output = toActionConfigOutput(config);
      recordActionConfigEvent(em, ctx.auth, 'action_config.created', output);
      await em.flush();
      return output;
    });
  });
