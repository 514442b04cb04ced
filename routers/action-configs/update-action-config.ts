import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { authedProcedure } from '../trpc.ts';
import {
  actionConfigFields,
  actionConfigOutput,
  assertMarkdownSize,
  toActionConfigOutput,
} from './action-config.schema.ts';
import { recordActionConfigEvent } from './action-config-events.ts';
import { findActionConfig } from './find-action-config.ts';

export const updateActionConfigInput = z.strictObject({
  actionConfigId: z.uuid(),
  actionType: actionConfigFields.actionType.optional(),
  templateMarkdown: actionConfigFields.templateMarkdown.optional(),
  disclosuresMarkdown: actionConfigFields.disclosuresMarkdown.optional(),
  requirementsJson: actionConfigFields.requirementsJson.optional(),
  repName: actionConfigFields.repName.optional(),
  status: actionConfigFields.status.optional(),
});

/**
 * Edits fields and moves between `draft` and `published`. Publishing sets `publishedAt`
 * and writes `action_config.published`; going back to draft clears it (`…updated`).
 */
export const updateActionConfig = authedProcedure
  .meta({
    openapi: {
      method: 'PATCH',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Edit, publish or unpublish an action config',
    },
  })
  .input(updateActionConfigInput)
  .output(actionConfigOutput)
  .mutation(async ({ ctx, input }) => {
    const { actionConfigId, ...changes } = input;
    if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
    assertMarkdownSize({
      templateMarkdown: changes.templateMarkdown,
      disclosuresMarkdown: changes.disclosuresMarkdown,
    });
    // Locked: a concurrent delete makes this a 404 instead of an event for a deleted config.
    return ctx.em.transactional(async (em) => {
      const config = await findActionConfig(em, ctx.auth, actionConfigId, { lock: true });
      const before = JSON.stringify(toActionConfigOutput(config));
      const publishing = changes.status === 'published' && config.status !== 'published';

      if (changes.actionType !== undefined) config.actionType = changes.actionType;
      if (changes.templateMarkdown !== undefined) config.templateMarkdown = changes.templateMarkdown;
      if (changes.disclosuresMarkdown !== undefined) config.disclosuresMarkdown = changes.disclosuresMarkdown;
      if (changes.requirementsJson !== undefined) config.requirementsJson = changes.requirementsJson;
      if (changes.repName !== undefined) config.repName = changes.repName;
      if (changes.status !== undefined && changes.status !== config.status) {
        config.status = changes.status;
        config.publishedAt = changes.status === 'published' ? new Date() : null;
      }
      if (JSON.stringify(toActionConfigOutput(config)) === before) return toActionConfigOutput(config);

      config.updatedAt = new Date();
      const output = toActionConfigOutput(config);
      recordActionConfigEvent(
        em,
        ctx.auth,
        publishing ? 'action_config.published' : 'action_config.updated',
        output,
      );
      await em.flush();
      return output;
    });
  });
