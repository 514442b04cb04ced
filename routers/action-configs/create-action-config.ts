import { z } from 'zod';
import { actionConfigOutput } from '../../domain/action-configs/action-config-output.ts';
import * as actionConfigs from '../../domain/action-configs/action-configs.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigFields } from './action-config.schema.ts';

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
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/action-configs',
      tags: ['action-configs'],
      summary: 'Create an action config (a markdown template such as a letter of intent)',
      description:
        'Adds a call-to-action template to the deck as a `draft`: a markdown template (`templateMarkdown`, such as a letter of intent), optional disclosures and a JSON object of requirements. Write access; event `action_config.created`.',
    },
    successStatus: 201,
    location: '/action-configs/{id}',
  })
  .input(createActionConfigInput)
  .output(actionConfigOutput)
  .mutation(({ ctx, input }) => actionConfigs.createActionConfig(ctx, input));
