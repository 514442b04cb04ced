import type { EntityManager } from '@mikro-orm/postgresql';
import { ActionConfig } from '../../entities/ActionConfig.ts';
import type { Auth } from '../context.ts';
import { notFound } from '../errors.ts';

export async function findActionConfig(em: EntityManager, auth: Auth, id: string): Promise<ActionConfig> {
  const config = await em.findOne(ActionConfig, { id, deck: { organization: auth.organizationId } });
  if (!config) throw notFound('Action config', id);
  return config;
}
