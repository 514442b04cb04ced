import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCountOf } from './helpers/app-setup.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startSmtpSink } from './helpers/smtp-sink.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string };
let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Decks <decks@example.test>',
    NOTIFICATIONS_POLL_INTERVAL_MS: '50',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
  });
  user = await t.signedInClient('Subscriber Org');
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const create = (body: Record<string, unknown>) =>
  user.post('/api/notifications/subscriptions', { name: 'Sub', eventType: '*', channel: 'console', ...body });

describe('subscriptions', () => {
  it('are created (201), listed, read, updated and deleted, each with its event; the secret is shown once', async () => {
    const created = await create({
      name: 'Hook',
      eventType: 'slide.*',
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.example.com/deck' },
    });
    expect(created.status).toBe(201);
    const { secret, ...subscription } = created.body;
    expect(secret).toMatch(/^whsec_/);
    expect(subscription).toEqual({
      id: expect.any(String),
      organizationId: user.organizationId,
      name: 'Hook',
      eventType: 'slide.*',
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.example.com/deck' },
      deckId: null,
      isActive: true,
      eventAccess: 'owner',
      disabledReason: null,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: subscription.createdAt,
    });
    expect((await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body).toEqual(
      subscription,
    );
    expect((await user.get('/api/notifications/subscriptions')).body.subscriptions).toContainEqual(
      subscription,
    );

    const updated = await user.put(`/api/notifications/subscriptions/${subscription.id}`, {
      isActive: false,
      eventType: '*',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ isActive: false, eventType: '*', name: 'Hook' });
    expect(updated.body.secret).toBeUndefined();

    expect((await user.delete(`/api/notifications/subscriptions/${subscription.id}`)).body).toEqual({
      success: true,
    });
    expectProblem(await user.get(`/api/notifications/subscriptions/${subscription.id}`), 404, 'NOT_FOUND');
    expect(await t.eventTypes(subscription.id)).toEqual([
      'notification_subscription.created',
      'notification_subscription.updated',
      'notification_subscription.deleted',
    ]);
    const log = await user.get(`/api/notifications/events?aggregateId=${subscription.id}`);
    expect(JSON.stringify(log.body)).not.toContain(secret);
  });

  it('checks channelConfig against the channel the subscription will have', async () => {
    const subscription = (await create({ channel: 'console' })).body;
    const switched = await user.put(`/api/notifications/subscriptions/${subscription.id}`, {
      channel: 'webhook',
    });
    expect(expectProblem(switched, 400, 'BAD_REQUEST').issues).toEqual([
      { path: ['channelConfig', 'url'], message: expect.any(String) },
    ]);
    const withConfig = await user.put(`/api/notifications/subscriptions/${subscription.id}`, {
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.example.com/x' },
    });
    expect(withConfig.status).toBe(200);
    expect(withConfig.body.secret).toMatch(/^whsec_/);
    const emailConfigOnWebhook = await user.put(`/api/notifications/subscriptions/${subscription.id}`, {
      channelConfig: { recipients: ['a@b.test'] },
    });
    expectProblem(emailConfigOnWebhook, 400, 'BAD_REQUEST');
    expect(
      (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body.channelConfig,
    ).toEqual({
      url: 'https://hooks.example.com/x',
    });
  });

  it.each([
    ['an unknown channel', { channel: 'sms' }, 'channel'],
    ['an unknown event type', { eventType: 'slide.exploded' }, 'eventType'],
    ['a wildcard of an unknown aggregate', { eventType: 'widget.*' }, 'eventType'],
    ['a webhook without a URL', { channel: 'webhook', channelConfig: {} }, 'channelConfig.url'],
    [
      'a webhook URL that is not http',
      { channel: 'webhook', channelConfig: { url: 'ftp://x.test/' } },
      'channelConfig.url',
    ],
    [
      'an e-mail subscription without recipients',
      { channel: 'email', channelConfig: { recipients: [] } },
      'channelConfig.recipients',
    ],
    [
      'a recipient that is not an e-mail address',
      { channel: 'email', channelConfig: { recipients: ['nobody'] } },
      'channelConfig.recipients.0',
    ],
    ['console with settings', { channelConfig: { level: 'debug' } }, 'channelConfig'],
    ['a deck that does not exist', { deckId: randomUUID() }, 'deckId'],
    ['no name', { name: undefined }, 'name'],
  ])('rejects %s with 400, creating nothing', async (_label, body, field) => {
    const before = (await user.get('/api/notifications/subscriptions')).body.subscriptions.length;
    const problem = expectProblem(await create(body), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get('/api/notifications/subscriptions')).body.subscriptions).toHaveLength(before);
  });

  it('refuses e-mail subscriptions when no SMTP server is configured', async () => {
    const bare = await startTestApp();
    try {
      const someone = await bare.signedInClient();
      const response = await someone.post('/api/notifications/subscriptions', {
        name: 'Mail',
        eventType: '*',
        channel: 'email',
        channelConfig: { recipients: ['a@b.test'] },
      });
      expect(expectProblem(response, 400, 'BAD_REQUEST').detail).toMatch(/SMTP/);
    } finally {
      await bare.close();
    }
  });

  it('are invisible to other organizations', async () => {
    const mine = (await create({})).body;
    const stranger = await t.signedInClient();
    expect((await stranger.get('/api/notifications/subscriptions')).body.subscriptions).toEqual([]);
    expectProblem(
      await stranger.get(`/api/notifications/subscriptions/${mine.id}/deliveries`),
      404,
      'NOT_FOUND',
    );
    const foreignDeck = (await stranger.post('/api/decks', { name: 'theirs' })).body;
    expectProblem(await create({ deckId: foreignDeck.id }), 400, 'BAD_REQUEST');
  });
});

describe('e-mail and console delivery', () => {
  it('mails each matching event to the recipients through SMTP, readable', async () => {
    const subscription = (
      await create({
        name: 'Deck mail',
        eventType: 'deck.created',
        channel: 'email',
        channelConfig: { recipients: ['ops@example.test', 'sales@example.test'] },
      })
    ).body;
    const deck = (await user.post('/api/decks', { name: 'Mailed deck' })).body;
    const mail = (await eventually(() => smtp.messages.find((m) => m.text?.includes(deck.id))))!;
    expect(mail.subject).toBe('[Deck service] deck.created: deck “Mailed deck”');
    expect(mail.from?.value).toEqual([{ name: 'Decks', address: 'decks@example.test' }]);
    expect(mail.text).toContain('Deck mail');
    expect(smtp.envelopes.at(-1)).toEqual(['ops@example.test', 'sales@example.test']);
    const deliveries = await eventually(async () => {
      const body = (await user.get(`/api/notifications/subscriptions/${subscription.id}/deliveries`)).body;
      return body.deliveries[0]?.status === 'succeeded' && body;
    });
    expect(deliveries.pagination.total).toBe(1);
  });

  it('writes one structured log line per event for console subscriptions', async () => {
    await create({ name: 'Console', eventType: 'deck.updated' });
    const deck = (await user.post('/api/decks', { name: 'Logged deck' })).body;
    await user.patch(`/api/decks/${deck.id}`, { name: 'Logged deck 2' });
    const line = await eventually(() =>
      t
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find(
          (l) =>
            l.msg === 'event notification' &&
            l.notification.aggregateId === deck.id &&
            l.notification.eventType === 'deck.updated',
        ),
    );
    expect(line.notification).toMatchObject({
      eventType: 'deck.updated',
      deckId: deck.id,
      payload: { name: 'Logged deck 2' },
    });
  });
});

describe('access to subscriptions (api.md: admin access)', () => {
  const eventCount = () => eventCountOf(t, user.organizationId);

  it('members read them but may not create, change or delete them: 403 naming admin access, nothing written', async () => {
    const subscription = (await create({ name: 'Owned' })).body;
    const member = await t.signedInClient('Subscriber Org', 'member');
    const before = await eventCount();
    const refused = [
      await member.post('/api/notifications/subscriptions', {
        name: 'M',
        eventType: '*',
        channel: 'console',
      }),
      await member.put(`/api/notifications/subscriptions/${subscription.id}`, { name: 'Renamed' }),
      await member.delete(`/api/notifications/subscriptions/${subscription.id}`),
    ];
    for (const response of refused) {
      expectProblem(response, 403, 'FORBIDDEN');
      expect(response.body.detail).toBe('This needs admin access; yours is write');
    }
    expect(await eventCount()).toBe(before);
    const read = await member.get(`/api/notifications/subscriptions/${subscription.id}`);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Owned');
    expect((await member.get('/api/notifications/subscriptions')).status).toBe(200);
    expect((await member.get(`/api/notifications/subscriptions/${subscription.id}/deliveries`)).status).toBe(
      200,
    );
  });

  it('admins create, change and delete them; access is checked before the input', async () => {
    const admin = await t.signedInClient('Subscriber Org', 'admin');
    const created = await admin.post('/api/notifications/subscriptions', {
      name: 'By admin',
      eventType: '*',
      channel: 'console',
    });
    expect(created.status, created.text).toBe(201);
    const changed = await admin.put(`/api/notifications/subscriptions/${created.body.id}`, {
      name: 'Changed',
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await admin.delete(`/api/notifications/subscriptions/${created.body.id}`)).status).toBe(200);
    const member = await t.signedInClient('Subscriber Org', 'member');
    expectProblem(
      await member.post('/api/notifications/subscriptions', { nonsense: true }),
      403,
      'FORBIDDEN',
    );
  });
});
