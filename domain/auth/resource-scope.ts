import type { EntityManager } from '@mikro-orm/postgresql';
import { type DomainError, notFound } from '../errors.ts';

/**
 * The resources a request names by id (path parameters, or the same fields of a tRPC input),
 * each with the statement that finds it in an organization and the name its own 404 uses.
 */
const SCOPES: Record<string, { resource: string; sql: string }> = {
  deckId: { resource: 'Deck', sql: 'select 1 from deck where id = ? and organization_id = ?' },
  slideId: {
    resource: 'Slide',
    sql: 'select 1 from slide x join deck d on d.id = x.deck_id where x.id = ? and d.organization_id = ?',
  },
  faqId: {
    resource: 'FAQ',
    sql: 'select 1 from faq x join deck d on d.id = x.deck_id where x.id = ? and d.organization_id = ?',
  },
  actionConfigId: {
    resource: 'Action config',
    sql: 'select 1 from action_config x join deck d on d.id = x.deck_id where x.id = ? and d.organization_id = ?',
  },
  documentId: { resource: 'Document', sql: 'select 1 from kb_document where id = ? and organization_id = ?' },
  imageId: { resource: 'Image', sql: 'select 1 from image where id = ? and organization_id = ?' },
  subscriptionId: {
    resource: 'Subscription',
    sql: 'select 1 from notification_subscription where id = ? and organization_id = ?',
  },
  deliveryId: {
    resource: 'Delivery',
    sql: `select 1 from notification_delivery x join notification_subscription s on s.id = x.subscription_id
           where x.id = ? and s.organization_id = ?`,
  },
  userId: { resource: 'User', sql: 'select 1 from app_user where id = ? and organization_id = ?' },
  apiKeyId: { resource: 'API key', sql: 'select 1 from api_key where id = ? and organization_id = ?' },
  exportId: {
    resource: 'Export',
    sql: 'select 1 from export_job where id = ? and organization_id = ? and deck_id is not null',
  },
};

/** The ids `missingResource` knows: a route naming anything else must be added above (a test says so). */
export const SCOPED_IDS: readonly string[] = Object.keys(SCOPES);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * For a caller refused for want of access (403): the 404 of the first resource the request
 * names that the caller's organization does not have, exactly as its finder words it (api.md:
 * "another organization's resource stays a 404 whatever the access"); null when every one is
 * there (the 403 stands). Ids that are not UUIDs name nothing and are not looked up.
 */
export async function missingResource(
  em: EntityManager,
  organizationId: string,
  named: unknown,
): Promise<DomainError | null> {
  if (typeof named !== 'object' || named === null) return null;
  for (const [field, scope] of Object.entries(SCOPES)) {
    const id = (named as Record<string, unknown>)[field];
    if (typeof id !== 'string' || !UUID.test(id)) continue;
    const found = await em.execute(scope.sql, [id, organizationId]);
    if (found.length === 0) return notFound(scope.resource, id);
  }
  return null;
}
