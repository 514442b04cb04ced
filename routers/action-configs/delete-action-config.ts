import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { actionConfigIdInput, toActionConfigOutput } from './action-config.schema.ts';
import { recordActionConfigEvent } from './action-config-events.ts';
import { findActionConfig } from './find-action-config.ts';

export const deleteActionConfig = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/action-configs/{actionConfigId}',
      tags: ['action-configs'],
      summary: 'Delete an action config',
    },
  })
  .input(actionConfigIdInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    const config = await findActionConfig(ctx.em, ctx.auth, input.actionConfigId);
    recordActionConfigEvent(ctx.em, ctx.auth, 'action_config.deleted', toActionConfigOutput(config));
    ctx.em.remove(config);
    await ctx.em.flush();
    return { success: true as const };
  });
