import { png } from './files.ts';
import * as fixtures from './fixtures.ts';
import type { HttpClient } from './http-client.ts';
import type { TestApp } from './test-app.ts';
import { eventually } from './webhook-receiver.ts';

/**
 * One of each resource an organization can have, made through the API by `client` (an owner),
 * keyed by the path parameter that names it (`deckId`, `slideId`, …): the walkers put these
 * into every route's path.
 */
export async function createResources(t: TestApp, client: HttpClient): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  const expectStatus = (status: number, expected: number, what: string) => {
    if (status !== expected) throw new Error(`${what}: ${status}`);
  };
  ids.apiKeyId = (await client.post('/api/api-keys', { name: 'Owned key', access: 'read' })).body.apiKey.id;
  ids.deckId = (await client.post('/api/decks', { name: 'Owned' })).body.id;
  ids.slideId = (
    await client.post(`/api/decks/${ids.deckId}/slides`, {
      slideType: 'product_pricing_v1',
      productData: fixtures.productData,
    })
  ).body.id;
  ids.actionConfigId = (
    await client.post(`/api/decks/${ids.deckId}/action-configs`, fixtures.actionConfig)
  ).body.id;
  expectStatus((await client.put(`/api/decks/${ids.deckId}/intro`, fixtures.intro)).status, 200, 'intro');
  expectStatus(
    (await client.put(`/api/decks/${ids.deckId}/branding`, fixtures.branding)).status,
    200,
    'branding',
  );
  ids.imageId = (await client.upload('/api/images', { name: 'logo.png', bytes: png(4, 3) })).body.id;
  ids.documentId = (
    await client.post('/api/company/kb/documents/upload-init', {
      filename: 'a.txt',
      contentType: 'text/plain',
      sizeBytes: 3,
    })
  ).body.documentId;
  ids.faqId = (
    await client.post(`/api/decks/${ids.deckId}/faqs`, {
      userQuestion: 'Price?',
      cannedAnswer: 'It depends.',
    })
  ).body.id;
  ids.subscriptionId = (
    await client.post('/api/notifications/subscriptions', { name: 'Log', eventType: '*', channel: 'console' })
  ).body.id;
  ids.userId = (
    await t.createUser({
      organization: (await client.get('/api/auth/me')).body.organization.name,
      email: `member-${ids.deckId}@example.test`,
      password: 'a-member-password',
      role: 'member',
    })
  ).userId;
  // An export, ended before the walk starts (its end writes an event, which would move the snapshot).
  ids.exportId = (await client.post(`/api/decks/${ids.deckId}/exports`, { format: 'pdf' })).body.id;
  await eventually(
    async () =>
      ['completed', 'failed'].includes((await client.get(`/api/exports/${ids.exportId}`)).body.status),
    60_000,
  );
  // Its own creation event is delivered to it: a delivery that has finished.
  ids.deliveryId = await eventually(async () => {
    const { deliveries } = (
      await client.get(`/api/notifications/subscriptions/${ids.subscriptionId}/deliveries`)
    ).body;
    return deliveries[0]?.status === 'succeeded' && deliveries[0].id;
  });
  return ids;
}

/** A digest of everything a request could change: equal before and after means it wrote nothing. */
export async function snapshot(t: TestApp) {
  const rows = await t.app.database.orm.em.getConnection().execute(
    `select (select count(*) from event) as events,
            (select md5(coalesce(string_agg(s::text, ',' order by s.id), '')) from slide s) as slides,
            (select md5(coalesce(string_agg(d::text, ',' order by d.id), '')) from deck d) as decks,
            (select md5(coalesce(string_agg(a::text, ',' order by a.id), '')) from action_config a) as configs,
            (select md5(coalesce(string_agg(b::text, ','), '')) from deck_branding b) as branding,
            (select md5(coalesce(string_agg(i::text, ','), '')) from deck_intro i) as intros,
            (select md5(coalesce(string_agg(n::text, ',' order by n.id), '')) from notification_subscription n) as subs,
            (select md5(coalesce(string_agg(m::text, ',' order by m.id), '')) from image m) as images,
            (select md5(coalesce(string_agg(k::text, ',' order by k.id), '')) from kb_document k) as documents,
            (select md5(coalesce(string_agg(f::text, ',' order by f.id), '')) from faq f) as faqs,
            (select md5(coalesce(string_agg(u::text, ',' order by u.id), '')) from app_user u) as users,
            (select count(*) from session) as sessions,
            (select count(*) from generation_job) as jobs,
            (select md5(coalesce(string_agg(x.id || x.status || coalesce(x.file_key, ''), ',' order by x.id), '')) from export_job x) as exports,
            -- Not last_used_at: using a key moves it (at most once a minute), by design.
            (select md5(coalesce(string_agg(k.id || k.name || coalesce(k.revoked_at::text, ''), ',' order by k.id), '')) from api_key k) as keys`,
  );
  return rows[0];
}
