import { actionConfigOutput } from '../../domain/action-configs/action-config-output.ts';
import * as actionConfigs from '../../domain/action-configs/action-configs.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigIdInput } from './action-config.schema.ts';

export const getActionConfig = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Get an action config',
      description: "One action config of the caller's organization, with its `status` and `publishedAt`.",
    },
  })
  .input(actionConfigIdInput)
  .output(actionConfigOutput)
  .query(({ ctx, input }) => actionConfigs.getActionConfig(ctx, input.actionConfigId));
