import * as actionConfigs from '../../domain/action-configs/action-configs.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigIdInput } from './action-config.schema.ts';

export const deleteActionConfig = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Delete an action config',
      description:
        'Removes the action config, draft or published. Write access; event `action_config.deleted`.',
    },
  })
  .input(actionConfigIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => actionConfigs.deleteActionConfig(ctx, input.actionConfigId));
