import { z } from 'zod';
import { actionConfigOutput } from '../../domain/action-configs/action-config-output.ts';
import * as actionConfigs from '../../domain/action-configs/action-configs.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigFields } from './action-config.schema.ts';

export const updateActionConfigInput = z.strictObject({
  actionConfigId: z.uuid(),
  actionType: actionConfigFields.actionType.optional(),
  templateMarkdown: actionConfigFields.templateMarkdown.optional(),
  disclosuresMarkdown: actionConfigFields.disclosuresMarkdown.optional(),
  requirementsJson: actionConfigFields.requirementsJson.optional(),
  repName: actionConfigFields.repName.optional(),
  status: actionConfigFields.status.optional(),
});

export const updateActionConfig = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'PATCH',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Edit, publish or unpublish an action config',
      description:
        'Changes any of its fields; `status` moves it between `draft` and `published` (publishing sets `publishedAt`). At least one field. Events `action_config.updated`, or `action_config.published` on publishing.',
    },
  })
  .input(updateActionConfigInput)
  .output(actionConfigOutput)
  .mutation(({ ctx, input }) => actionConfigs.updateActionConfig(ctx, input));
