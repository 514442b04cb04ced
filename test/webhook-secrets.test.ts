import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../adapters/secret-box.ts';
import { newId } from '../entities/ids.ts';
import { migrationsFor } from '../migrations/index.ts';
import { createOrmConfig } from '../mikro-orm.config.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { insertOrganization, migrateToJustBefore } from './helpers/older-database.ts';
import { createTestDatabase, type TestApp } from './helpers/test-app.ts';
import { eventually, signedBy } from './helpers/webhook-receiver.ts';
import { subscribe, webhookScenario } from './helpers/webhook-scenario.ts';

const { app, receiver, userAndReceiver } = webhookScenario();
const newKey = () => randomBytes(32).toString('base64url');

async function rotate(user: HttpClient, subscriptionId: string, body: Record<string, unknown> = {}) {
  return user.post(`/api/notifications/subscriptions/${subscriptionId}/rotate-secret`, body);
}

/** A slide event, delivered: the newest message the receiver got for it. */
async function deliverOne(user: HttpClient, hooks: Awaited<ReturnType<typeof receiver>>) {
  const before = hooks.received.length;
  const deck = (await user.post('/api/decks', { name: 'Signed' })).body;
  await user.post(`/api/decks/${deck.id}/slides`, { title: 'one' });
  await eventually(() => hooks.received.length > before);
  return hooks.received.at(-1)!;
}

async function storedRow(t: TestApp, subscriptionId: string) {
  const [row] = await t.app.database.orm.em
    .getConnection()
    .execute<Record<string, unknown>[]>('select * from notification_subscription where id = ?', [
      subscriptionId,
    ]);
  return row!;
}

describe('secret rotation (api.md: webhook operations)', () => {
  it('signs with the new secret first and the old second during the grace period, then the new alone', async () => {
    const { t, user, hooks } = await userAndReceiver();
    const subscription = await subscribe(user, hooks.url);
    const old = subscription.secret as string;

    const rotated = await rotate(user, subscription.id, { graceHours: 2 });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/) });
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);

    const during = await deliverOne(user, hooks);
    expect(during.signature).toMatch(/^v1,\S+ v1,\S+$/);
    expect(signedBy(during, fresh)).toEqual([true, false]);
    expect(signedBy(during, old)).toEqual([false, true]);
    // The answer says until when the old secret signs; the rest of the subscription is unchanged.
    const shown = (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body;
    const until = Date.parse(shown.previousSecretExpiresAt);
    expect(until - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(2 * 3600_000);

    // The test message is signed the same way.
    hooks.useSecret(fresh);
    expect((await user.post(`/api/notifications/subscriptions/${subscription.id}/test`)).status).toBe(200);
    expect(signedBy(hooks.received.at(-1)!, old)).toEqual([false, true]);

    // The grace period runs out (its end moved to the past, as time would).
    await t.app.database.orm.em
      .getConnection()
      .execute(
        `update notification_subscription set previous_secret_expires_at = now() - interval '1 second' where id = ?`,
        [subscription.id],
      );
    const after = await deliverOne(user, hooks);
    expect(signedBy(after, fresh)).toEqual([true]);
    expect(signedBy(after, old)).toEqual([false]);
  });

  it('with graceHours 0 the old secret stops at once; a rotation during a grace period replaces the older secret', async () => {
    const { user, hooks } = await userAndReceiver();
    const subscription = await subscribe(user, hooks.url);
    const first = subscription.secret as string;

    const second = (await rotate(user, subscription.id, { graceHours: 0 })).body.secret as string;
    const immediate = await deliverOne(user, hooks);
    expect(signedBy(immediate, second)).toEqual([true]);
    expect(signedBy(immediate, first)).toEqual([false]);
    expect(
      (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body.previousSecretExpiresAt,
    ).toBe(null);

    // Default grace (24 h), then another rotation inside it: the newest two sign, never three.
    const third = (await rotate(user, subscription.id)).body.secret as string;
    const fourth = (await rotate(user, subscription.id, { graceHours: 1 })).body.secret as string;
    const message = await deliverOne(user, hooks);
    expect(signedBy(message, fourth)).toEqual([true, false]);
    expect(signedBy(message, third)).toEqual([false, true]);
    expect(signedBy(message, second)).toEqual([false, false]);
  });

  it('records secret_rotated without the secret; two concurrent rotations leave one of their secrets signing, the other second', async () => {
    const { t, user, hooks } = await userAndReceiver();
    const subscription = await subscribe(user, hooks.url);
    const [a, b] = await Promise.all([rotate(user, subscription.id), rotate(user, subscription.id)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const message = await deliverOne(user, hooks);
    // Serialised by the row lock: whichever ran second signs first, the other second.
    const order = [signedBy(message, a.body.secret), signedBy(message, b.body.secret)];
    expect(order).toContainEqual([true, false]);
    expect(order).toContainEqual([false, true]);

    const events = (
      await user.get(`/api/notifications/events?eventType=notification_subscription.secret_rotated`)
    ).body.events;
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ aggregateId: subscription.id, payload: { id: subscription.id } });
    const text = JSON.stringify(events);
    for (const secret of [subscription.secret, a.body.secret, b.body.secret]) {
      expect(text).not.toContain(secret.slice('whsec_'.length));
      expect(t.logs()).not.toContain(secret.slice('whsec_'.length));
    }
  });

  it('refuses a bad grace (400), a subscription without a secret (409), members (403) and strangers (404), changing nothing', async () => {
    const t = await app();
    const owner = await t.signedInClient();
    const hooks = await receiver();
    const subscription = await subscribe(owner, hooks.url);
    const consoleSubscription = await subscribe(owner, hooks.url, { channel: 'console', channelConfig: {} });
    const stranger = await t.signedInClient();
    const before = await storedRow(t, subscription.id);

    for (const graceHours of [-1, 168.5, 169, '24', null]) {
      expectProblem(await rotate(owner, subscription.id, { graceHours }), 400, 'BAD_REQUEST');
    }
    expectProblem(await rotate(owner, subscription.id, { graceHours: 1, extra: true }), 400, 'BAD_REQUEST');
    expectProblem(await rotate(owner, consoleSubscription.id), 409, 'CONFLICT');
    expectProblem(await rotate(stranger, subscription.id), 404, 'NOT_FOUND');
    expectProblem(await rotate(owner, newId()), 404, 'NOT_FOUND');
    expect(await storedRow(t, subscription.id)).toEqual(before);
    const rotations = await owner.get(
      '/api/notifications/events?eventType=notification_subscription.secret_rotated',
    );
    expect(rotations.body.events).toEqual([]);

    // At the bounds.
    expect((await rotate(owner, subscription.id, { graceHours: 168 })).status).toBe(200);
    expect((await rotate(owner, subscription.id, { graceHours: 0.5 })).status).toBe(200);
  });

  it('is for admins: a member of the organization gets 403 and nothing changes', async () => {
    const t = await app();
    const owner = await t.signedInClient('Rotation Org');
    const hooks = await receiver();
    const subscription = await subscribe(owner, hooks.url);
    const member = await t.signedInClient('Rotation Org', 'member');
    const before = await storedRow(t, subscription.id);
    const refused = await rotate(member, subscription.id);
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).toMatch(/admin/);
    expect(await storedRow(t, subscription.id)).toEqual(before);
  });
});

describe('secrets encrypted at rest (api.md: ENCRYPTION_KEY)', () => {
  it('stores only a sealed secret, bound to its row; a copy into another row does not open', async () => {
    const { t, user, hooks } = await userAndReceiver();
    const a = await subscribe(user, hooks.url);
    const b = await subscribe(user, hooks.url, { eventType: 'deck.*' });
    const row = await storedRow(t, a.id);
    const rowText = JSON.stringify(row);
    expect(rowText).not.toContain(a.secret.slice('whsec_'.length));
    expect(row).not.toHaveProperty('secret');
    expect(row.sealed_secret).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(String(row.sealed_secret).split('.')[3]!, 'base64url').length).toBeGreaterThan(16);

    // b's row given a's sealed secret: b's messages fail to sign, and say why without a secret.
    await t.app.database.orm.em
      .getConnection()
      .execute('update notification_subscription set sealed_secret = ? where id = ?', [
        row.sealed_secret,
        b.id,
      ]);
    await user.post('/api/decks', { name: 'Deck event for b' });
    const delivery = await eventually(async () => {
      const body = (await user.get(`/api/notifications/subscriptions/${b.id}/deliveries`)).body;
      return body.deliveries[0]?.attempts > 0 && body.deliveries[0];
    });
    expect(delivery.lastError).toMatch(/does not open/);
    expect(JSON.stringify(delivery)).not.toContain(a.secret.slice('whsec_'.length));
    expect(hooks.received.filter((r) => r.body.type === 'deck.created')).toEqual([]);
  });

  it('opens secrets sealed under a retired key listed in ENCRYPTION_KEYS_PREVIOUS, and names an unknown key', async () => {
    const oldKey = newKey();
    const first = await app({ ENCRYPTION_KEY: oldKey });
    const user = await first.signedInClient();
    const hooks = await receiver();
    const subscription = await subscribe(user, hooks.url);
    hooks.useSecret(subscription.secret);
    const keyId = String((await storedRow(first, subscription.id)).sealed_secret).split('.')[1];
    await first.close();

    // A new key alone: the secret does not open, the attempt fails naming the key id.
    const lost = await app({ ENCRYPTION_KEY: newKey() }, first.databaseUrl);
    const relogged = lost.client();
    expect(
      (await relogged.post('/api/auth/login', { email: user.email, password: user.password })).status,
    ).toBe(200);
    const deck = (await relogged.post('/api/decks', { name: 'Unsigned' })).body;
    await relogged.post(`/api/decks/${deck.id}/slides`, { title: 'unsigned' });
    const failing = await eventually(async () => {
      const body = (await relogged.get(`/api/notifications/subscriptions/${subscription.id}/deliveries`))
        .body;
      return body.deliveries.find((d: { attempts: number }) => d.attempts > 0);
    });
    expect(failing.lastError).toContain(`sealed under key ${keyId}`);
    expect(hooks.received).toEqual([]);
    await lost.close();

    // The new key with the old one retired: messages are signed with the original secret again.
    const rotated = await app(
      { ENCRYPTION_KEY: newKey(), ENCRYPTION_KEYS_PREVIOUS: `${newKey()}, ${oldKey}` },
      first.databaseUrl,
    );
    const again = rotated.client();
    expect((await again.post('/api/auth/login', { email: user.email, password: user.password })).status).toBe(
      200,
    );
    const message = await deliverOne(again, hooks);
    expect(message.verified).toBe(true);
  });

  it('seals the clear secrets an older database holds, in the migration', async () => {
    const key = newKey();
    const url = await createTestDatabase();
    const box = createSecretBox(key);
    const migrations = migrationsFor(box);
    const orm = await MikroORM.init(createOrmConfig(url, { debug: false }, box));
    const hooks = await receiver();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const organizationId = newId();
    const subscriptionId = newId();
    try {
      await migrateToJustBefore(orm, migrations, '_sealed_webhook_secrets');
      await insertOrganization(orm, organizationId, 'Before sealing');
      const sql = orm.em.getConnection();
      await sql.execute(
        `insert into notification_subscription
           (id, organization_id, name, event_type, channel, channel_config, secret, is_active, created_at, updated_at)
         values (?, ?, 'Old hook', 'deck.*', 'webhook', ?, ?, true, now(), now())`,
        [subscriptionId, organizationId, JSON.stringify({ url: hooks.url }), secret],
      );
      await orm.migrator.up();
      const [row] = await sql.execute<Record<string, unknown>[]>(
        'select * from notification_subscription where id = ?',
        [subscriptionId],
      );
      expect(row).not.toHaveProperty('secret');
      expect(JSON.stringify(row)).not.toContain(secret.slice('whsec_'.length));
      expect(box.open(String(row!.sealed_secret), `notification_subscription.secret:${subscriptionId}`)).toBe(
        secret,
      );
    } finally {
      await orm.close(true);
    }

    // The service on that database signs with the secret the integrator always had.
    const t = await app({ ENCRYPTION_KEY: key }, url);
    hooks.useSecret(secret);
    const member = await t.signedInClient('Before sealing', 'member');
    expect(member.organizationId).toBe(organizationId);
    await member.post('/api/decks', { name: 'After sealing' });
    await eventually(() => hooks.received.length === 1);
    expect(hooks.received[0]!.body.type).toBe('deck.created');
    expect(hooks.received[0]!.verified).toBe(true);
  });
});
