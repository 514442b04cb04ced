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
  .mutation(async ({ ctx, input }) =>
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    ctx.em.transactional(async (em) => {
      const config = await findActionConfig(em, ctx.auth, input.actionConfigId, { lock: true });
      recordActionConfigEvent(em, ctx.auth, 'action_config.deleted', toActionConfigOutput(config));
      em.remove(config);
      await em.flush();
      return { success: true as const };
    }),
  );
