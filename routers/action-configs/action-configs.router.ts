import { router } from '../trpc.ts';
import { createActionConfig } from './create-action-config.ts';
import { deleteActionConfig } from './delete-action-config.ts';
import { getActionConfig } from './get-action-config.ts';
import { listActionConfigs } from './list-action-configs.ts';
import { updateActionConfig } from './update-action-config.ts';

/** Router keys are the procedures' names: `actionConfigs.createActionConfig`. */
export const actionConfigsRouter = router({
  createActionConfig,
  listActionConfigs,
  getActionConfig,
  updateActionConfig,
  deleteActionConfig,
});
