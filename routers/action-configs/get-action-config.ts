import { authedProcedure } from '../trpc.ts';
import { actionConfigIdInput, actionConfigOutput, toActionConfigOutput } from './action-config.schema.ts';
import { findActionConfig } from './find-action-config.ts';

export const getActionConfig = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Get an action config',
    },
  })
  .input(actionConfigIdInput)
  .output(actionConfigOutput)
  .query(async ({ ctx, input }) =>
    toActionConfigOutput(await findActionConfig(ctx.em, ctx.auth, input.actionConfigId)),
  );
