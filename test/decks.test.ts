import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let alice: HttpClient & { organizationId: string; userId: string };
let mallory: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signedInClient('Alice Inc');
  mallory = await t.signedInClient('Mallory Ltd');
});
afterAll(() => t.close());

async function eventsFor(aggregateId: string) {
  return t.app.database.orm.em
    .getConnection()
    .execute<{ event_type: string; payload: any; organization_id: string }[]>(
      'select event_type, payload, organization_id from event where aggregate_id = ? order by occurred_at, id',
      [aggregateId],
    );
}

describe('deck lifecycle', () => {
  it('creates (201), lists, gets, renames, sets the voice and deletes a deck, with an event for each change', async () => {
    const created = await alice.post('/api/decks', { name: '  Q4 pitch  ' });
    expect(created.status).toBe(201);
    const deck = created.body;
    expect(deck).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organizationId: alice.organizationId,
      name: 'Q4 pitch',
      voiceId: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: deck.createdAt,
    });

    const list = await alice.get('/api/decks');
    expect(list.status).toBe(200);
    expect(list.body.decks).toContainEqual(deck);

    expect((await alice.get(`/api/decks/${deck.id}`)).body).toEqual(deck);

    const renamed = await alice.patch(`/api/decks/${deck.id}`, { name: 'Q4 pitch v2', voiceId: 'en-us+f3' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: deck.id, name: 'Q4 pitch v2', voiceId: 'en-us+f3' });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(deck.updatedAt));
    // The answer is what was stored, timestamps included.
    expect((await alice.get(`/api/decks/${deck.id}`)).body).toEqual(renamed.body);

    const cleared = await alice.patch(`/api/decks/${deck.id}`, { voiceId: null });
    expect(cleared.body.voiceId).toBeNull();

    const deleted = await alice.delete(`/api/decks/${deck.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    expectProblem(await alice.get(`/api/decks/${deck.id}`), 404, 'NOT_FOUND');

    const events = await eventsFor(deck.id);
    expect(events.map((e) => e.event_type)).toEqual([
      'deck.created',
      'deck.updated',
      'deck.updated',
      'deck.deleted',
    ]);
    expect(events[0]!.payload).toEqual({
      ...deck,
      deckId: deck.id,
      actor: { type: 'user', id: alice.userId },
    });
    expect(events.every((e) => e.organization_id === alice.organizationId)).toBe(true);
  });

  it('lists only the caller’s decks, newest first', async () => {
    const first = (await alice.post('/api/decks', { name: 'first' })).body;
    const second = (await alice.post('/api/decks', { name: 'second' })).body;
    const theirs = (await mallory.post('/api/decks', { name: 'theirs' })).body;
    const ids = (await alice.get('/api/decks')).body.decks.map((d: { id: string }) => d.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids).not.toContain(theirs.id);
  });

  it('answers a PATCH that changes nothing with the deck, and writes no event', async () => {
    const deck = (await alice.post('/api/decks', { name: 'same' })).body;
    const response = await alice.patch(`/api/decks/${deck.id}`, { name: 'same' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(deck);
    expect((await eventsFor(deck.id)).map((e) => e.event_type)).toEqual(['deck.created']);
  });
});

describe('bad input changes nothing', () => {
  it.each([
    ['a missing name', {}, 'name'],
    ['an empty name', { name: '   ' }, 'name'],
    ['a name of the wrong type', { name: 42 }, 'name'],
    ['a name too long', { name: 'x'.repeat(201) }, 'name'],
    ['an unknown field', { name: 'ok', colour: 'red' }, 'colour'],
  ])('rejects %s with 400 and an issue on the field', async (_label, body, field) => {
    const before = (await alice.get('/api/decks')).body.decks.length;
    const problem = expectProblem(await alice.post('/api/decks', body), 400, 'BAD_REQUEST');
    expect(problem.issues!.map((i) => i.path.join('.'))).toContain(field);
    expect((await alice.get('/api/decks')).body.decks.length).toBe(before);
  });

  it('rejects a malformed deck id with 400 on every deck route', async () => {
    for (const [method, json] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const problem = expectProblem(
        await alice.request(method, '/api/decks/not-a-uuid', { json }),
        400,
        'BAD_REQUEST',
      );
      expect(problem.issues).toContainEqual({ path: ['deckId'], message: expect.any(String) });
    }
  });

  it('rejects an invalid rename and leaves the deck as it was', async () => {
    const deck = (await alice.post('/api/decks', { name: 'keep me' })).body;
    expectProblem(await alice.patch(`/api/decks/${deck.id}`, { name: '' }), 400, 'BAD_REQUEST');
    expect((await alice.get(`/api/decks/${deck.id}`)).body).toEqual(deck);
    expect((await eventsFor(deck.id)).map((e) => e.event_type)).toEqual(['deck.created']);
  });
});

describe('organization isolation', () => {
  it('answers another organization’s deck exactly like a missing one, on every deck route', async () => {
    const deck = (await alice.post('/api/decks', { name: 'secret' })).body;
    const missing = randomUUID();
    for (const [method, json] of [
      ['GET', undefined],
      ['PATCH', { name: 'pwned' }],
      ['DELETE', undefined],
    ] as const) {
      const foreign = await mallory.request(method, `/api/decks/${deck.id}`, { json });
      const absent = await mallory.request(method, `/api/decks/${missing}`, { json });
      expectProblem(foreign, 404, 'NOT_FOUND');
      expect(foreign.body).toEqual({ ...absent.body, detail: absent.body.detail.replace(missing, deck.id) });
    }
    expect((await alice.get(`/api/decks/${deck.id}`)).body).toEqual(deck);
    expect((await eventsFor(deck.id)).map((e) => e.event_type)).toEqual(['deck.created']);
  });
});
