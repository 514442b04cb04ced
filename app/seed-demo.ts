import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { findAuth } from '../domain/auth/callers.ts';
import type { Services } from '../domain/services.ts';
import { Organization } from '../entities/Organization.ts';
import { createInProcessCaller } from './in-process.ts';

export const DEMO_EMAIL = 'demo@example.com';

/**
 * On an empty database, creates a demo organization, user and deck through the same
 * procedures the API uses, and returns the login to print. Returns null when the database
 * already has an organization.
 */
export async function seedDemo(
  orm: MikroORM,
  services: Services,
  demoPassword?: string,
): Promise<{ email: string; password: string } | null> {
  if ((await orm.em.fork().count(Organization)) > 0) return null;
  const password = demoPassword ?? randomBytes(9).toString('base64url');
  const operator = createInProcessCaller(orm, services);
  const { userId } = await operator.admin.createUser({
    organization: 'Demo Organization',
    email: DEMO_EMAIL,
    password,
    name: 'Demo User',
  });
  const asDemoUser = createInProcessCaller(orm, services, await findAuth(orm.em.fork(), userId));
  await asDemoUser.decks.createDeck({ name: 'Demo deck' });
  return { email: DEMO_EMAIL, password };
}
