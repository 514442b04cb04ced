import { describe, expect, it } from 'vitest';
import { expectProblem } from './helpers/http-client.ts';
import { startTestApp } from './helpers/test-app.ts';
import { eventually, startWebhookReceiver } from './helpers/webhook-receiver.ts';
import {
  deliveriesOf,
  FAST_WEBHOOKS,
  latestDeliveryWhen,
  subscribe,
  webhookScenario,
} from './helpers/webhook-scenario.ts';

const { app, receiver, userAndReceiver } = webhookScenario();

describe('webhook delivery', () => {
  it('delivers each slide event once, signed (Standard Webhooks), each slide’s events in order, matching the event log', async () => {
    const { user, hooks } = await userAndReceiver();
    const subscription = await subscribe(user, hooks.url);
    expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    hooks.useSecret(subscription.secret);

    const deck = (await user.post('/api/decks', { name: 'Hooked' })).body;
    const a = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'a' })).body;
    const b = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'b' })).body;
    await user.put(`/api/decks/${deck.id}/slides/reorder`, { slideIds: [b.id, a.id] });
    await user.patch(`/api/slides/${a.id}`, { title: 'a2' });
    await user.delete(`/api/slides/${b.id}`);

    const log = (await user.get('/api/notifications/events?aggregateType=slide')).body.events.reverse();
    expect(log.map((e: { eventType: string }) => e.eventType)).toEqual([
      'slide.created',
      'slide.created',
      'slide.updated',
      'slide.deleted',
    ]);
    await eventually(() => hooks.received.length === 4);
    // Order holds per aggregate (one slide); different slides may go out in parallel.
    for (const slide of [a, b]) {
      const ofSlide = (ids: { id: string; aggregateId: string }[]) =>
        ids.filter((e) => e.aggregateId === slide.id).map((e) => e.id);
      expect(
        ofSlide(hooks.received.map((r) => ({ id: r.id, aggregateId: r.body.data.aggregateId }))),
      ).toEqual(ofSlide(log));
    }
    expect(hooks.received.map((r) => r.id).sort()).toEqual(log.map((e: { id: string }) => e.id).sort());
    expect(hooks.received.every((r) => r.verified)).toBe(true);
    // Different slides may go out in parallel: the first event's message, wherever it arrived.
    expect(hooks.received.find((r) => r.id === log[0].id)!.body).toEqual({
      type: 'slide.created',
      timestamp: log[0].occurredAt,
      data: {
        id: log[0].id,
        aggregateType: 'slide',
        aggregateId: a.id,
        deckId: deck.id,
        payload: log[0].payload,
      },
    });

    // Nothing more arrives: the deck events did not match slide.*, and nothing was sent twice.
    const history = await eventually(async () => {
      const body = await deliveriesOf(user, subscription.id);
      return body.deliveries.every((d: { status: string }) => d.status === 'succeeded') && body;
    });
    expect(history.pagination.total).toBe(4);
    expect(history.deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 204 });
    expect(history.deliveries[0].attemptLog).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        responseStatus: 204,
        durationMs: expect.any(Number),
        responseBody: '',
        error: null,
      },
    ]);
    expect(hooks.received).toHaveLength(4);
  });

  it('retries a receiver that fails twice: same webhook-id, a fresh signature each time', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1.2,1.2,1.2' });
    const user = await t.signedInClient();
    const hooks = await receiver((_r, count) => ({ status: count <= 2 ? 500 : 200 }));
    const subscription = await subscribe(user, hooks.url);
    hooks.useSecret(subscription.secret);
    const deck = (await user.post('/api/decks', { name: 'Retry' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});

    await eventually(() => hooks.received.length === 3);
    const [first, second, third] = hooks.received;
    expect(new Set([first!.id, second!.id, third!.id]).size).toBe(1);
    expect(new Set([first!.signature, second!.signature, third!.signature]).size).toBe(3);
    expect(hooks.received.every((r) => r.verified)).toBe(true);
    const delivery = await latestDeliveryWhen(user, subscription.id, 'succeeded');
    expect(delivery.attempts).toBe(3);
    // Newest first.
    expect(delivery.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([
      200, 500, 500,
    ]);
    expect(delivery.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([3, 2, 1]);
  });

  it('marks a delivery failed after the last retry', async () => {
    const t = await app();
    const user = await t.signedInClient();
    const hooks = await receiver(() => ({ status: 503 }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Doomed' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const delivery = await latestDeliveryWhen(user, subscription.id, 'failed');
    expect(delivery).toMatchObject({ attempts: 4, lastStatusCode: 503, nextAttemptAt: null });
    expect(hooks.received).toHaveLength(4);
  });

  it('honours Retry-After over the schedule', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '3600' });
    const user = await t.signedInClient();
    const hooks = await receiver((_r, count) =>
      count === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Later' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(() => hooks.delivered().length === 1);
    expect(hooks.received).toHaveLength(2);
  });

  it('switches the subscription off when the receiver answers 410 Gone', async () => {
    const t = await app();
    const user = await t.signedInClient();
    const hooks = await receiver(() => ({ status: 410 }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Gone' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(
      async () =>
        (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body.isActive === false,
    );
    expect((await deliveriesOf(user, subscription.id)).deliveries[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
    });
    expect(await t.eventTypes(subscription.id)).toEqual([
      'notification_subscription.created',
      'notification_subscription.updated',
    ]);
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const afterwards = await user.get('/api/notifications/events?eventType=slide.created');
    expect(afterwards.body.pagination.total).toBe(2);
    expect(hooks.received).toHaveLength(1);
  });

  it('does not follow redirects', async () => {
    const t = await app();
    const user = await t.signedInClient();
    const target = await receiver();
    const hooks = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Moved' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const delivery = (
      await eventually(
        async () =>
          (await deliveriesOf(user, subscription.id)).deliveries[0]?.attempts >= 1 &&
          (await deliveriesOf(user, subscription.id)),
      )
    ).deliveries[0];
    expect(delivery.lastStatusCode).toBe(307);
    expect(target.received).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer within the timeout, and says so', async () => {
    const t = await app({ WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_SCHEDULE_SECONDS: '3600' });
    const user = await t.signedInClient();
    const hooks = await receiver(() => 'hang');
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Slow' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const delivery = (
      await eventually(
        async () =>
          (await deliveriesOf(user, subscription.id)).deliveries[0]?.attempts === 1 &&
          (await deliveriesOf(user, subscription.id)),
      )
    ).deliveries[0];
    expect(delivery).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: 'no answer within 300 ms',
    });
    expect(delivery.attemptLog[0].durationMs).toBeGreaterThanOrEqual(290);
  });

  it('keeps an aggregate’s events in order while an earlier one is being retried', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.3,0.3' });
    const user = await t.signedInClient();
    const hooks = await receiver((_r, count) => ({ status: count <= 2 ? 500 : 200 }));
    await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Ordered' })).body;
    const slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: '1' })).body;
    await user.patch(`/api/slides/${slide.id}`, { title: '2' });
    await user.patch(`/api/slides/${slide.id}`, { title: '3' });
    await eventually(() => hooks.delivered().length === 3);
    expect(hooks.delivered().map((r) => r.body.data.payload.title)).toEqual(['1', '2', '3']);
    // The later events waited: nothing of them reached the receiver before the first got through.
    expect(hooks.received.slice(0, 3).map((r) => r.body.data.payload.title)).toEqual(['1', '1', '1']);
  });

  it('sends only the events of its deck when restricted to one', async () => {
    const { user, hooks } = await userAndReceiver();
    const watched = (await user.post('/api/decks', { name: 'Watched' })).body;
    const ignored = (await user.post('/api/decks', { name: 'Ignored' })).body;
    await subscribe(user, hooks.url, { eventType: '*', deckId: watched.id });
    await user.post(`/api/decks/${ignored.id}/slides`, {});
    await user.post(`/api/decks/${watched.id}/slides`, {});
    await user.patch(`/api/decks/${watched.id}`, { name: 'Watched!' });
    await eventually(() => hooks.received.length === 3);
    // Different aggregates may arrive in any order; only one aggregate's events are ordered.
    // The subscription's own creation is an event of that deck too.
    expect(hooks.received.map((r) => r.body.type).sort()).toEqual([
      'deck.updated',
      'notification_subscription.created',
      'slide.created',
    ]);
    expect(hooks.received.every((r) => r.body.data.deckId === watched.id)).toBe(true);
  });
});

describe('crashes and restarts lose nothing', () => {
  it('delivers, once, an event whose receiver was down while the service restarted', async () => {
    const down = await startWebhookReceiver();
    await down.close(); // nothing listens on its port now
    const first = await startTestApp({ ...FAST_WEBHOOKS, WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1' });
    const user = await first.signedInClient();
    const subscription = await subscribe(user, down.url);
    const deck = (await user.post('/api/decks', { name: 'Restart' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(async () => (await deliveriesOf(user, subscription.id)).deliveries[0]?.attempts >= 1);
    await first.close();

    // The receiver is back on the same port; the service starts again on the same database.
    const hooks = await receiver(undefined, down.port);
    hooks.useSecret(subscription.secret);
    const second = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1' }, first.databaseUrl);
    await eventually(() => hooks.received.length === 1);
    expect(hooks.received[0]!.verified).toBe(true);
    expect(hooks.received[0]!.body.type).toBe('slide.created');
    const rows = await eventually(async () => {
      const found = await second.app.database.orm.em
        .getConnection()
        .execute('select status, attempts from notification_delivery where subscription_id = ?', [
          subscription.id,
        ]);
      return found[0]?.status === 'succeeded' && found;
    });
    expect(rows).toEqual([{ status: 'succeeded', attempts: 2 }]);
    expect(hooks.received).toHaveLength(1);
  });

  it('shares the work between two instances on one database, sending each event once', async () => {
    const hooks = await receiver();
    const one = await app({ NOTIFICATIONS_CONCURRENCY: '2' });
    const two = await app({ NOTIFICATIONS_CONCURRENCY: '2' }, one.databaseUrl);
    const user = await one.signedInClient();
    hooks.useSecret((await subscribe(user, hooks.url, { eventType: 'deck.*' })).secret);
    const viaTwo = two.client();
    await viaTwo.post('/api/auth/login', { email: user.email, password: user.password });
    // 40 decks, created through both instances at once: 40 aggregates, 40 deliveries.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? user : viaTwo).post('/api/decks', { name: `d${i}` })),
    );
    await eventually(() => hooks.received.length >= 40);
    const rows = await eventually(async () => {
      const found = await one.app.database.orm.em
        .getConnection()
        .execute(`select count(*)::int as n from notification_delivery where status = 'succeeded'`);
      return found[0]?.n === 40 && found;
    });
    expect(rows).toEqual([{ n: 40 }]);
    expect(hooks.received).toHaveLength(40);
    expect(new Set(hooks.received.map((r) => r.id)).size).toBe(40);
    expect(hooks.received.every((r) => r.verified)).toBe(true);
  });

  it('takes up again a delivery whose worker died holding it, once its lease has run out', async () => {
    const { t, user, hooks } = await userAndReceiver();
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Orphan' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(() => hooks.received.length === 1);
    // Recorded first: the outcome is written after the answer, and would overwrite the change below.
    await latestDeliveryWhen(user, subscription.id, 'succeeded');
    // As a worker that claimed the delivery and died mid-send leaves it: pending, lease lapsed.
    await t.app.database.orm.em.getConnection().execute(
      `update notification_delivery set status = 'pending', completed_at = null,
                locked_until = now() - interval '1 second', next_attempt_at = now()`,
    );
    await eventually(() => hooks.received.length === 2);
    // At least once: the receiver sees the same webhook-id again and can de-duplicate.
    expect(hooks.received[1]!.id).toBe(hooks.received[0]!.id);
  });
});

describe('private networks', () => {
  it('refuses loopback and private webhook URLs at creation unless allowed', async () => {
    const t = await app({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    const user = await t.signedInClient();
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const problem = expectProblem(
        await user.post('/api/notifications/subscriptions', {
          name: 'x',
          eventType: '*',
          channel: 'webhook',
          channelConfig: { url },
        }),
        400,
        'BAD_REQUEST',
      );
      expect(problem.issues).toEqual([
        { path: ['channelConfig', 'url'], message: expect.stringMatching(/private|this machine/) },
      ]);
    }
    expect((await user.get('/api/notifications/subscriptions')).body.subscriptions).toEqual([]);
  });

  it('refuses to deliver to a private address when the operator has not allowed it', async () => {
    const hooks = await receiver();
    const permissive = await startTestApp(FAST_WEBHOOKS);
    const user = await permissive.signedInClient();
    const subscription = await subscribe(user, hooks.url);
    await permissive.close();
    const strict = await app({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }, permissive.databaseUrl);
    const again = strict.client();
    await again.post('/api/auth/login', { email: user.email, password: user.password });
    const deck = (await again.post('/api/decks', { name: 'Private' })).body;
    await again.post(`/api/decks/${deck.id}/slides`, {});
    const delivery = (
      await eventually(
        async () =>
          (await deliveriesOf(again, subscription.id)).deliveries[0]?.attempts >= 1 &&
          (await deliveriesOf(again, subscription.id)),
      )
    ).deliveries[0];
    expect(delivery.lastError).toContain('refused: ');
    expect(delivery.lastError).toContain('private or loopback address (127.0.0.1)');
    expect(hooks.received).toHaveLength(0);
  });
});

describe('attempt log and manual retry (api.md: webhook operations)', () => {
  it('keeps the first 2 KB of each answer as text (NUL dropped), newest first', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2' });
    const user = await t.signedInClient();
    const hooks = await receiver((_r, count) =>
      count === 1
        ? { status: 500, body: `${'x'.repeat(5000)}\u0000` }
        : { status: 200, body: 'ok\u0000done' },
    );
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Answers' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const delivery = await latestDeliveryWhen(user, subscription.id, 'succeeded');
    expect(delivery.attemptLog).toEqual([
      expect.objectContaining({ attempt: 2, responseStatus: 200, responseBody: 'okdone', error: null }),
      expect.objectContaining({
        attempt: 1,
        responseStatus: 500,
        responseBody: 'x'.repeat(2048),
        error: 'receiver answered 500',
      }),
    ]);
    expect(Date.parse(delivery.attemptLog[0].at)).toBeGreaterThanOrEqual(
      Date.parse(delivery.attemptLog[1].at),
    );
  });

  it('queues a failed delivery again with the whole schedule, and a succeeded one once more, same webhook-id', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2' });
    const user = await t.signedInClient();
    // Down for the first three attempts: two before the manual retry, one after it.
    const hooks = await receiver((_r, count) => ({ status: count <= 3 ? 500 : 200 }));
    const subscription = await subscribe(user, hooks.url);
    hooks.useSecret(subscription.secret);
    const deck = (await user.post('/api/decks', { name: 'Outage' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    const failed = await latestDeliveryWhen(user, subscription.id, 'failed');
    expect(failed.attempts).toBe(2);

    const retried = await user.post(`/api/notifications/deliveries/${failed.id}/retry`);
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 2, completedAt: null });
    expect(retried.body.attemptLog).toHaveLength(2);
    // Its third attempt fails too, and is retried: the schedule started over with the manual retry.
    const succeeded = await latestDeliveryWhen(user, subscription.id, 'succeeded');
    expect(succeeded.attempts).toBe(4);
    expect(succeeded.attemptLog.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([
      200, 500, 500, 500,
    ]);

    const again = await user.post(`/api/notifications/deliveries/${failed.id}/retry`);
    expect(again.status, again.text).toBe(202);
    await eventually(() => hooks.delivered().length === 2);
    expect(hooks.received).toHaveLength(5);
    expect(new Set(hooks.received.map((r) => r.id)).size).toBe(1);
    expect(hooks.received.every((r) => r.verified)).toBe(true);
  });

  it('refuses a queued delivery (409), a switched-off subscription’s (409), members (403) and strangers (404)', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2', WEBHOOK_TIMEOUT_MS: '5000' });
    const user = await t.signedInClient('Retry Org');
    const hooks = await receiver(() => 'hang');
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Hanging' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(() => hooks.received.length === 1);
    const [pending] = (await deliveriesOf(user, subscription.id)).deliveries;
    expect(pending.status).toBe('pending');
    expectProblem(await user.post(`/api/notifications/deliveries/${pending.id}/retry`), 409, 'CONFLICT');

    const member = await t.signedInClient('Retry Org', 'member');
    expectProblem(await member.post(`/api/notifications/deliveries/${pending.id}/retry`), 403, 'FORBIDDEN');
    const stranger = await t.signedInClient();
    expectProblem(await stranger.post(`/api/notifications/deliveries/${pending.id}/retry`), 404, 'NOT_FOUND');
    expectProblem(
      await user.post(`/api/notifications/deliveries/00000000-0000-4000-8000-000000000000/retry`),
      404,
      'NOT_FOUND',
    );

    const console = await user.post('/api/notifications/subscriptions', {
      name: 'Console',
      eventType: 'deck.*',
      channel: 'console',
    });
    await user.post('/api/decks', { name: 'Logged' });
    const done = await latestDeliveryWhen(user, console.body.id, 'succeeded');
    await user.put(`/api/notifications/subscriptions/${console.body.id}`, { isActive: false });
    expectProblem(await user.post(`/api/notifications/deliveries/${done.id}/retry`), 409, 'CONFLICT');
    expect((await deliveriesOf(user, console.body.id)).deliveries[0].status).toBe('succeeded');
  });
});

describe('test messages (api.md: webhook operations)', () => {
  const deliveryCount = async (t: Awaited<ReturnType<typeof app>>) => {
    const [row] = await t.app.database.orm.em
      .getConnection()
      .execute<{ deliveries: number; events: number }[]>(
        'select (select count(*)::int from notification_delivery) as deliveries, (select count(*)::int from event) as events',
      );
    return row!;
  };

  it('sends one signed notification.test to that subscription alone: no event, no delivery, no retry', async () => {
    const { t, user, hooks } = await userAndReceiver();
    const other = await receiver();
    const subscription = await subscribe(user, hooks.url, { eventType: '*' });
    await subscribe(user, other.url, { eventType: '*' });
    hooks.useSecret(subscription.secret);
    // The subscriptions' creation events are delivered first (the first sees both, the second its
    // own); the test adds nothing to them.
    await eventually(() => hooks.delivered().length === 2 && other.delivered().length === 1);
    const before = await deliveryCount(t);

    const response = await user.post(`/api/notifications/subscriptions/${subscription.id}/test`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      attempt: { status: 'succeeded', responseStatus: 204, durationMs: expect.any(Number), error: null },
    });
    expect(hooks.received).toHaveLength(3);
    const message = hooks.received[2]!;
    expect(message.verified).toBe(true);
    expect(message.body).toMatchObject({
      type: 'notification.test',
      data: { aggregateType: 'notification_subscription', aggregateId: subscription.id, deckId: null },
    });
    expect(message.id).toBe(message.body.data.id);
    expect(other.received).toHaveLength(1);
    expect(await deliveryCount(t)).toEqual(before);
  });

  it('reports a failed attempt as a 200 whose status is failed, and does not retry it', async () => {
    const t = await app();
    const user = await t.signedInClient();
    const hooks = await receiver(() => ({ status: 500 }));
    const subscription = await subscribe(user, hooks.url, { isActive: false });
    // A switched-off subscription is tested too: checking the endpoint before switching it on.
    const response = await user.post(`/api/notifications/subscriptions/${subscription.id}/test`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.attempt).toMatchObject({
      status: 'failed',
      responseStatus: 500,
      error: 'receiver answered 500',
    });
    const closed = await receiver();
    await closed.close();
    const unreachable = await subscribe(user, closed.url);
    const refused = await user.post(`/api/notifications/subscriptions/${unreachable.id}/test`);
    expect(refused.body.attempt).toMatchObject({ status: 'failed', responseStatus: null });
    expect(refused.body.attempt.error).toEqual(expect.any(String));
    expect(hooks.received).toHaveLength(1);
  });

  it('tests console subscriptions; members may not (403); strangers get 404', async () => {
    const t = await app();
    const user = await t.signedInClient('Testing Org');
    const console = await user.post('/api/notifications/subscriptions', {
      name: 'Console',
      eventType: 'deck.*',
      channel: 'console',
    });
    const response = await user.post(`/api/notifications/subscriptions/${console.body.id}/test`);
    expect(response.body.attempt).toMatchObject({ status: 'succeeded', responseStatus: null, error: null });
    expect(t.logs()).toContain('notification.test');
    const member = await t.signedInClient('Testing Org', 'member');
    expectProblem(
      await member.post(`/api/notifications/subscriptions/${console.body.id}/test`),
      403,
      'FORBIDDEN',
    );
    const stranger = await t.signedInClient();
    expectProblem(
      await stranger.post(`/api/notifications/subscriptions/${console.body.id}/test`),
      404,
      'NOT_FOUND',
    );
  });
});

describe('auto-disable (api.md: WEBHOOK_DISABLE_AFTER_HOURS)', () => {
  const failingSince = async (t: Awaited<ReturnType<typeof app>>, id: string) => {
    const [row] = await t.app.database.orm.em
      .getConnection()
      .execute<{ failing_since: Date | null }[]>(
        'select failing_since from notification_subscription where id = ?',
        [id],
      );
    return row!.failing_since;
  };

  it('switches off a webhook whose deliveries all failed that long, says why, and forgets it when switched on', async () => {
    const t = await app({
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '0.2,0.2,0.2,0.2,0.2',
      WEBHOOK_DISABLE_AFTER_HOURS: '2',
    });
    const user = await t.signedInClient();
    const hooks = await receiver(() => ({ status: 500 }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Failing' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    await eventually(async () => (await failingSince(t, subscription.id)) !== null);
    // Failing for less than two hours: still on.
    expect((await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body.isActive).toBe(true);
    // The clock moved back instead of waiting two hours; the next failure switches it off.
    await t.app.database.orm.em
      .getConnection()
      .execute(
        `update notification_subscription set failing_since = now() - interval '2 hours 1 minute' where id = ?`,
        [subscription.id],
      );
    const off = await eventually(async () => {
      const body = (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body;
      return body.isActive === false && body;
    });
    expect(off.disabledReason).toMatch(
      /^Every delivery failed for 2 hours \(since .+\); the last: receiver answered 500$/,
    );
    const events = (await user.get(`/api/notifications/events?aggregateId=${subscription.id}`)).body.events;
    expect(events.map((e: { eventType: string }) => e.eventType)).toEqual([
      'notification_subscription.disabled',
      'notification_subscription.created',
    ]);
    expect(events[0].payload).toMatchObject({ isActive: false, disabledReason: off.disabledReason });

    const on = await user.put(`/api/notifications/subscriptions/${subscription.id}`, { isActive: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ isActive: true, disabledReason: null });
    expect(await failingSince(t, subscription.id)).toBeNull();
  });

  it('a success stops the failure clock, and the subscription stays on', async () => {
    const t = await app({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1.5,1.5', WEBHOOK_DISABLE_AFTER_HOURS: '1' });
    const user = await t.signedInClient();
    const hooks = await receiver((_r, count) => ({ status: count === 1 ? 500 : 204 }));
    const subscription = await subscribe(user, hooks.url);
    const deck = (await user.post('/api/decks', { name: 'Recovering' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, {});
    // The first failure starts the clock (the retry comes 1.5 s later)…
    await eventually(async () => (await failingSince(t, subscription.id)) !== null);
    expect(hooks.delivered()).toHaveLength(0);
    // …and the success of the retry stops it.
    await eventually(() => hooks.delivered().length === 1);
    await eventually(async () => (await failingSince(t, subscription.id)) === null);
    expect(hooks.received).toHaveLength(2);
    const body = (await user.get(`/api/notifications/subscriptions/${subscription.id}`)).body;
    expect(body).toMatchObject({ isActive: true, disabledReason: null });
  });
});

describe('replay (api.md: webhook operations)', () => {
  const deliveryRows = async (t: Awaited<ReturnType<typeof app>>) => {
    const [row] = await t.app.database.orm.em
      .getConnection()
      .execute<{ n: number }[]>('select count(*)::int as n from notification_delivery');
    return row!.n;
  };

  it('delivers again the window’s matching events, from before the subscription too, same webhook-id', async () => {
    const t = await app();
    const user = await t.signedInClient();
    const since = new Date(Date.now() - 1000).toISOString();
    const deck = (await user.post('/api/decks', { name: 'Earlier' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'a' });
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'b' });
    const slideEvents = (await user.get('/api/notifications/events?aggregateType=slide')).body.events;
    const hooks = await receiver();
    const subscription = await subscribe(user, hooks.url);
    hooks.useSecret(subscription.secret);

    const replayed = await user.post(`/api/notifications/subscriptions/${subscription.id}/replay`, { since });
    expect(replayed.status, replayed.text).toBe(202);
    expect(replayed.body).toEqual({ queued: 2 });
    await eventually(() => hooks.delivered().length === 2);
    expect(hooks.received.map((r) => r.id).sort()).toEqual(
      slideEvents.map((e: { id: string }) => e.id).sort(),
    );
    expect(hooks.received.every((r) => r.verified && r.body.type === 'slide.created')).toBe(true);

    // Again: two more, the same ids; a window that ends before them queues nothing.
    const again = await user.post(`/api/notifications/subscriptions/${subscription.id}/replay`, { since });
    expect(again.body).toEqual({ queued: 2 });
    await eventually(() => hooks.delivered().length === 4);
    expect(new Set(hooks.received.map((r) => r.id)).size).toBe(2);
    const before = await user.post(`/api/notifications/subscriptions/${subscription.id}/replay`, {
      since: new Date(Date.parse(since) - 60_000).toISOString(),
      until: since,
    });
    expect(before.body).toEqual({ queued: 0 });
  });

  it('refuses bad windows and too many events with 400, writing nothing; at the limit it queues', async () => {
    const t = await app({ WEBHOOK_REPLAY_MAX_DAYS: '1', WEBHOOK_REPLAY_MAX_EVENTS: '2' });
    const user = await t.signedInClient('Replay Org');
    const start = new Date(Date.now() - 1000).toISOString();
    const deck = (await user.post('/api/decks', { name: 'Window' })).body;
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'a' });
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'b' });
    const hooks = await receiver();
    const subscription = await subscribe(user, hooks.url);
    const replay = (body: unknown, client = user) =>
      client.post(`/api/notifications/subscriptions/${subscription.id}/replay`, body);
    // A third slide event (delivered live): three would match, past the limit of two.
    await user.post(`/api/decks/${deck.id}/slides`, { title: 'c' });
    await eventually(() => hooks.delivered().length === 1);
    const rows = await deliveryRows(t);
    const hour = 3_600_000;
    const refusals: [unknown, string][] = [
      [{ since: new Date(Date.now() + hour).toISOString() }, 'since'],
      [{ since: start, until: new Date(Date.now() + hour).toISOString() }, 'until'],
      [{ since: start, until: start }, 'until'],
      [{ since: start, until: new Date(Date.parse(start) - hour).toISOString() }, 'until'],
      [{ since: new Date(Date.now() - 25 * hour).toISOString() }, 'since'],
      [{ since: 'yesterday' }, 'since'],
      [{ since: start, extra: true }, ''],
      [{}, 'since'],
    ];
    for (const [body, field] of refusals) {
      const problem = expectProblem(await replay(body), 400, 'BAD_REQUEST');
      // Only the field at fault: a future `since` says nothing of the `until` not sent.
      if (field)
        expect(
          [...new Set((problem.issues ?? []).map((i: { path: (string | number)[] }) => i.path[0]))],
          JSON.stringify(body),
        ).toEqual([field]);
    }
    const tooMany = expectProblem(await replay({ since: start }), 400, 'BAD_REQUEST');
    expect(tooMany.detail).toBe('More than 2 events match this window: replay a shorter one');
    expect(await deliveryRows(t)).toBe(rows);
    // Exactly two: queued.
    const slides = (await user.get('/api/notifications/events?aggregateType=slide')).body.events;
    const atLimit = await replay({ since: start, until: slides[0].occurredAt });
    expect(atLimit.status, atLimit.text).toBe(202);
    expect(atLimit.body).toEqual({ queued: 2 });

    const member = await t.signedInClient('Replay Org', 'member');
    expectProblem(await replay({ since: start }, member), 403, 'FORBIDDEN');
    const stranger = await t.signedInClient();
    expectProblem(await replay({ since: start }, stranger), 404, 'NOT_FOUND');
    await user.put(`/api/notifications/subscriptions/${subscription.id}`, { isActive: false });
    expectProblem(await replay({ since: start }), 409, 'CONFLICT');
  });
});
