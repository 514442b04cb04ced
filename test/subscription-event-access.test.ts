import { describe, expect, it } from 'vitest';
import { expectProblem, keyClient } from './helpers/http-client.ts';
import { eventually } from './helpers/webhook-receiver.ts';
import { deliveriesOf, subscribe, webhookScenario } from './helpers/webhook-scenario.ts';

/**
 * Issue 29, finding 4: a subscription receives only the events its access may read, as the event
 * log shows them (API keys' events need owner). Its access is its creator's, or that of whoever
 * last set where it sends.
 */

const { app, receiver } = webhookScenario();

const types = (received: { body: { type: string } }[]) => received.map((r) => r.body.type);
const apiKeyTypes = (list: string[]) => list.filter((type) => type.startsWith('api_key.'));

describe('API key events reach only subscriptions with owner access', () => {
  it('an admin’s subscription gets none, live or replayed, nor may it ask for them; an owner’s gets them', async () => {
    const t = await app();
    const owner = await t.signedInClient('Keys Org');
    const admin = await t.signedInClient('Keys Org', 'admin');
    const adminKey = keyClient(
      t.url,
      (await owner.post('/api/api-keys', { name: 'ops', access: 'admin' })).body.secret,
    );
    const adminHooks = await receiver();
    const ownerHooks = await receiver();
    const adminSubscription = await subscribe(admin, adminHooks.url, { eventType: '*' });
    const ownerSubscription = await subscribe(owner, ownerHooks.url, { eventType: '*' });
    expect(adminSubscription.eventAccess).toBe('admin');
    expect(ownerSubscription.eventAccess).toBe('owner');

    // Event types that name API keys' events only: refused to admins (users and keys), nothing written.
    const before = (await owner.get('/api/notifications/subscriptions')).body.subscriptions.length;
    for (const client of [admin, adminKey]) {
      for (const eventType of ['api_key.*', 'api_key.created']) {
        const refused = await client.post('/api/notifications/subscriptions', {
          name: 'Keys',
          eventType,
          channel: 'webhook',
          channelConfig: { url: adminHooks.url },
        });
        expect(expectProblem(refused, 403, 'FORBIDDEN').detail).toMatch(/api_key need owner access/);
      }
      const changed = await client.put(`/api/notifications/subscriptions/${adminSubscription.id}`, {
        eventType: 'api_key.*',
      });
      expectProblem(changed, 403, 'FORBIDDEN');
    }
    expect((await owner.get('/api/notifications/subscriptions')).body.subscriptions).toHaveLength(before);

    const since = new Date().toISOString();
    const key = (await owner.post('/api/api-keys', { name: 'CI', access: 'read' })).body.apiKey;
    await owner.delete(`/api/api-keys/${key.id}`);
    // A later event of another aggregate: once it has arrived, the key's events were dispatched too.
    await owner.post('/api/decks', { name: 'After the keys' });
    await eventually(() => types(adminHooks.delivered()).includes('deck.created'));
    await eventually(() => apiKeyTypes(types(ownerHooks.delivered())).length === 2);
    expect(apiKeyTypes(types(adminHooks.received))).toEqual([]);
    // The owner sees every delivery of the admin's subscription: none of a key's event was made.
    const made = (await deliveriesOf(owner, adminSubscription.id)).deliveries.map(
      (d: { eventType: string }) => d.eventType,
    );
    expect(made).toContain('deck.created');
    expect(apiKeyTypes(made)).toEqual([]);

    // A replay of the same window queues the deck's event alone for the admin's subscription.
    const replayed = await admin.post(`/api/notifications/subscriptions/${adminSubscription.id}/replay`, {
      since,
    });
    expect(replayed.body).toEqual({ queued: 1 });
    const ownerReplay = await owner.post(`/api/notifications/subscriptions/${ownerSubscription.id}/replay`, {
      since,
    });
    expect(ownerReplay.body).toEqual({ queued: 3 });
    await eventually(
      () => types(adminHooks.delivered()).filter((type) => type === 'deck.created').length === 2,
    );
    await eventually(() => apiKeyTypes(types(ownerHooks.delivered())).length === 4);
    expect(apiKeyTypes(types(adminHooks.received))).toEqual([]);

    // A delivery of a key's event is missing to an admin, as in the deliveries list.
    const keyDelivery = (await deliveriesOf(owner, ownerSubscription.id)).deliveries.find(
      (d: { eventType: string; status: string }) =>
        d.eventType === 'api_key.created' && d.status === 'succeeded',
    );
    expectProblem(
      await admin.post(`/api/notifications/deliveries/${keyDelivery.id}/retry`),
      404,
      'NOT_FOUND',
    );
    expect((await owner.post(`/api/notifications/deliveries/${keyDelivery.id}/retry`)).status).toBe(202);
  });

  it('an admin who points an owner’s subscription elsewhere takes none of its key events, queued ones included', async () => {
    // A failed attempt is tried again an hour later: the key's event stays queued meanwhile.
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '3600' });
    const owner = await t.signedInClient('Moved Org');
    const admin = await t.signedInClient('Moved Org', 'admin');
    const ownersReceiver = await receiver(() => ({ status: 500 }));
    const adminsReceiver = await receiver();
    const subscription = await subscribe(owner, ownersReceiver.url, { eventType: '*' });
    await owner.post('/api/api-keys', { name: 'CI', access: 'read' });
    const queued = await eventually(async () =>
      (await deliveriesOf(owner, subscription.id)).deliveries.find(
        (d: { eventType: string; attempts: number }) => d.eventType === 'api_key.created' && d.attempts === 1,
      ),
    );
    expect(queued.status).toBe('pending');

    const moved = await admin.put(`/api/notifications/subscriptions/${subscription.id}`, {
      channelConfig: { url: adminsReceiver.url },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.eventAccess).toBe('admin');
    expectProblem(
      await owner.put(`/api/notifications/subscriptions/${subscription.id}`, { eventType: 'api_key.*' }),
      403,
      'FORBIDDEN',
    );
    // The hour passes: what was queued is due now.
    await t.app.database.orm.em
      .getConnection()
      .execute(
        `update notification_delivery set next_attempt_at = now() where subscription_id = ? and status = 'pending' and next_attempt_at <> 'infinity'`,
        [subscription.id],
      );
    await owner.post('/api/api-keys', { name: 'Another', access: 'read' });
    await owner.post('/api/decks', { name: 'After the move' });

    const dropped = await eventually(async () => {
      const delivery = (await deliveriesOf(owner, subscription.id)).deliveries.find(
        (d: { id: string }) => d.id === queued.id,
      );
      return delivery.status === 'failed' && delivery;
    });
    expect(dropped).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/^not sent/) });
    await eventually(() => types(adminsReceiver.delivered()).includes('deck.created'));
    expect(apiKeyTypes(types(adminsReceiver.received))).toEqual([]);
    expect(apiKeyTypes(types(ownersReceiver.received))).toEqual(['api_key.created']);

    // The owner takes it back by setting where it sends: key events reach it again.
    const back = await owner.put(`/api/notifications/subscriptions/${subscription.id}`, {
      channelConfig: { url: adminsReceiver.url },
    });
    expect(back.body.eventAccess).toBe('owner');
    await owner.post('/api/api-keys', { name: 'Third', access: 'read' });
    await eventually(() => apiKeyTypes(types(adminsReceiver.delivered())).length === 1);
  });
});
