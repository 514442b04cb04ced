import type { EntityManager } from '@mikro-orm/postgresql';
import { ActionConfig } from '../../entities/ActionConfig.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';
import { lockRow } from '../row-lock.ts';

/** `lock` (inside a transaction): the row is locked and re-read; deleted meanwhile → NOT_FOUND. */
export async function findActionConfig(
  em: EntityManager,
  auth: Auth,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ActionConfig> {
  let config = await em.findOne(ActionConfig, { id, deck: { organization: auth.organizationId } });
  if (config && options.lock) config = await lockRow(em, ActionConfig, id);
  if (!config) throw notFound('Action config', id);
  return config;
}
