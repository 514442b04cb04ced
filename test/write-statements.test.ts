import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apartFromRateLimitCounts, statementsDuring } from './helpers/statements.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// No background work here: every statement sent while counting is the requests'.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ NOTIFICATIONS_ENABLED: 'false', GENERATION_ENABLED: 'false' });
});
afterAll(() => t.close());

/** A request's own round trips: without the shared rate limit's count and the session lookup. */
async function roundTripsOf(request: () => Promise<void>): Promise<string[]> {
  const { own } = apartFromRateLimitCounts(await statementsDuring(t, request));
  return own.filter((statement) => !statement.startsWith('authenticate-session: '));
}

describe('round trips of the hot writes and the event page (npm run bench:http)', () => {
  it('a slide create and a slide delete are one round trip each (lock, change and event), the event page one', async () => {
    const user = await t.signedInClient();
    const deckId = (await user.post('/api/decks', { name: 'Counted' })).body.id;
    for (const title of ['One', 'Two', 'Three']) await user.post(`/api/decks/${deckId}/slides`, { title });
    let slideId = '';
    const create = await roundTripsOf(async () => {
      const response = await user.post(`/api/decks/${deckId}/slides`, { title: 'Counted', orderIndex: 1 });
      expect(response.status, response.text).toBe(201);
      slideId = response.body.id;
    });
    expect(create).toHaveLength(1);
    expect(create[0]).toMatch(/for update;\s*with deck as .*insert into slide .*insert into event /s);
    const remove = await roundTripsOf(async () => {
      expect((await user.delete(`/api/slides/${slideId}`)).status).toBe(200);
    });
    expect(remove).toHaveLength(1);
    expect(remove[0]).toMatch(
      /for update of d;\s*with deleted as \(\s*delete from slide .*insert into event /s,
    );
    const page = await roundTripsOf(async () => {
      expect((await user.get('/api/notifications/events')).status).toBe(200);
    });
    expect(page).toHaveLength(1);
    // Both written with their change: the page shows them, newest first, with their payloads.
    const { events } = (await user.get(`/api/notifications/events?aggregateId=${slideId}`)).body;
    expect(events.map((event: { eventType: string }) => event.eventType)).toEqual([
      'slide.deleted',
      'slide.created',
    ]);
    expect(events[1].payload).toMatchObject({ id: slideId, deckId, title: 'Counted', orderIndex: 1 });
    expect(events[1].payload.actor).toEqual({ type: 'user', id: expect.any(String) });
  });
});
