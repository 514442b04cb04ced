import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamReader } from './helpers/event-stream.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * Issue 38, finding 9: the event log ignored `deckId` and `eventType=slide.*`, which its stream
 * took. The log and the stream take the same filters (api.md, "The event log's filters, and query
 * strings"), one implementation for both (domain/events/event-filter.ts), and a filter narrows
 * the log's `pagination.total` as it narrows the page.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string };
const readers: StreamReader[] = [];
let deck: { id: string };
let other: { id: string };
let start: string;

/** The events a deck's changes write: of the deck itself, and of what is in it. */
beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient();
  start = new Date().toISOString();
  deck = (await user.post('/api/decks', { name: 'Filtered' })).body;
  other = (await user.post('/api/decks', { name: 'Other' })).body;
  const slide = (await user.post(`/api/decks/${deck.id}/slides`, { title: 'One' })).body;
  await user.patch(`/api/slides/${slide.id}`, { title: 'One, again' });
  await user.post(`/api/decks/${deck.id}/action-configs`, { actionType: 'loi', templateMarkdown: '# LOI' });
  await user.patch(`/api/decks/${deck.id}`, { name: 'Filtered, renamed' });
  await user.post(`/api/decks/${other.id}/slides`, { title: 'Elsewhere' });
});
afterAll(async () => {
  for (const reader of readers) reader.close();
  await t.close();
});

const log = async (query: string) => {
  const response = await user.get(`/api/notifications/events?${query}&since=${encodeURIComponent(start)}`);
  expect(response.status, response.text).toBe(200);
  return response.body as {
    events: { id: string; eventType: string; aggregateId: string }[];
    pagination: { total: number };
  };
};
const types = (events: { eventType: string }[]) => events.map((event) => event.eventType).reverse();

describe('the event log’s filters', () => {
  it('deckId: the deck’s own events and those of everything in it, and the total counts only them', async () => {
    const page = await log(`deckId=${deck.id}`);
    expect(types(page.events)).toEqual([
      'deck.created',
      'slide.created',
      'slide.updated',
      'action_config.created',
      'deck.updated',
    ]);
    expect(page.pagination.total).toBe(5);
    const small = await log(`deckId=${deck.id}&limit=2`);
    expect(small.events).toHaveLength(2);
    expect(small.pagination.total).toBe(5);
  });

  it('eventType=slide.*: every slide event, and its total; with deckId, the deck’s', async () => {
    const slides = await log('eventType=slide.*');
    expect(types(slides.events)).toEqual(['slide.created', 'slide.updated', 'slide.created']);
    expect(slides.pagination.total).toBe(3);
    const ofDeck = await log(`eventType=slide.*&deckId=${deck.id}`);
    expect(types(ofDeck.events)).toEqual(['slide.created', 'slide.updated']);
    expect(ofDeck.pagination.total).toBe(2);
  });

  it('eventType=slide.* without a time range counts from the counters: the same total', async () => {
    const response = await user.get('/api/notifications/events?eventType=slide.*&limit=1');
    expect(response.body.pagination.total).toBe(3);
    const all = await user.get('/api/notifications/events?eventType=*&limit=1');
    const none = await user.get('/api/notifications/events?limit=1');
    expect(all.body.pagination.total).toBe(none.body.pagination.total);
  });

  it('eventType=* is every event', async () => {
    const all = await log('eventType=*');
    const unfiltered = await log('limit=50');
    expect(all).toEqual(unfiltered);
  });

  it('pages with after under deckId as with offset', async () => {
    const first = await log(`deckId=${deck.id}&limit=3`);
    const next = await user.get(
      `/api/notifications/events?deckId=${deck.id}&limit=3&after=${first.events.at(-1)!.id}&since=${encodeURIComponent(start)}`,
    );
    const byOffset = await log(`deckId=${deck.id}&limit=3&offset=3`);
    expect(next.body.events).toEqual(byOffset.events);
  });

  it('a deck with no events of that type: empty, total 0', async () => {
    const page = await log(`deckId=${other.id}&eventType=action_config.*`);
    expect(page).toMatchObject({ events: [], pagination: { total: 0 } });
  });
});

describe('the stream takes the same filters and gives the same events', () => {
  it.each([
    (ids: { deck: string }) => `deckId=${ids.deck}`,
    () => 'eventType=slide.*',
    (ids: { deck: string }) => `eventType=slide.*&deckId=${ids.deck}`,
    (ids: { deck: string }) => `aggregateType=deck&deckId=${ids.deck}`,
  ])('filter %#', async (filterOf) => {
    const filter = filterOf({ deck: deck.id });
    const expected = (await log(filter)).events.reverse();
    // The stream's backlog from the log's first event: what the filter matches after it, in order.
    const [firstEvent] = (
      await user.get(`/api/notifications/events?since=${encodeURIComponent(start)}&limit=100`)
    ).body.events.reverse();
    const reader = new StreamReader(t.url, `?${filter}&lastEventId=${firstEvent.id}`, {
      cookie: user.cookieHeader,
    });
    readers.push(reader);
    const expectedAfter = expected.filter((event) => event.id !== firstEvent.id);
    await eventually(() => reader.messages.length >= expectedAfter.length);
    expect(reader.messages.map((message) => message.data)).toEqual(expectedAfter);
    reader.close();
  });

  it('since and until on the stream, as on the log', async () => {
    const until = new Date().toISOString();
    const reader = new StreamReader(
      t.url,
      `?deckId=${deck.id}&until=${encodeURIComponent(until)}&since=${encodeURIComponent(start)}`,
      { cookie: user.cookieHeader },
    );
    readers.push(reader);
    await reader.opened();
    // After `until`: the stream does not carry it.
    await user.patch(`/api/decks/${deck.id}`, { name: 'Too late' });
    const control = new StreamReader(t.url, `?deckId=${deck.id}`, { cookie: user.cookieHeader });
    readers.push(control);
    await control.opened();
    await user.patch(`/api/decks/${deck.id}`, { name: 'Later still' });
    await eventually(() => control.messages.length >= 1);
    expect(reader.messages).toEqual([]);
    expect(
      (
        await user.get(
          `/api/notifications/events/stream?since=${encodeURIComponent(until)}&until=${encodeURIComponent(start)}`,
        )
      ).status,
    ).toBe(400);
  });
});
