import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openTransaction,
  waitForLockWaiters,
  waitForTableLockWaiter,
} from './helpers/blocking-transaction.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The one-trip slide writes (`inOneTrip`: the deck's lock, then the change, in one message) behind
 * other writers of the same deck: what they answer is what happened, and their events keep the
 * order in which the writes happened.
 */
const STATEMENT_MS = 3000;
let t: TestApp;
let db: pg.Client;
let user: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp({
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    NOTIFICATIONS_ENABLED: 'false',
    GENERATION_ENABLED: 'false',
  });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  user = await t.signedInClient();
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

const newDeck = async () => (await user.post('/api/decks', { name: 'One trip' })).body.id as string;

/** A duration the test is about (how long a lock is held), not a wait for something to happen. */
const hold = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a one-trip slide create behind other writers of its deck', () => {
  it('waits for the deck lock, then for the slide table, each for most of the statement timeout: 201 and the slide stored, not a 503 with the slide stored', async () => {
    const deckId = await newDeck();
    const deckLock = await openTransaction(t.databaseUrl);
    const tableLock = await openTransaction(t.databaseUrl);
    try {
      await deckLock.query('select 1 from deck where id = $1 for update', [deckId]);
      // The create's second statement (its insert) then waits too, once it has the deck.
      await tableLock.query('lock table slide in share mode');
      const answer = user.post(`/api/decks/${deckId}/slides`, { title: 'Late' });
      // Each statement runs for two thirds of its timeout: the server may legitimately commit
      // after more than one statement timeout in all.
      await waitForLockWaiters(t.databaseUrl, 1);
      await hold((STATEMENT_MS * 2) / 3);
      await deckLock.commit();
      await waitForTableLockWaiter(t.databaseUrl, 'slide');
      await hold((STATEMENT_MS * 2) / 3);
      await tableLock.rollback();
      const response = await answer;
      // The whole table's lock is granted only once the create's message has ended, committed
      // or not, even when the service stopped waiting for it.
      await db.query('begin');
      await db.query('lock table slide in access exclusive mode');
      await db.query('rollback');
      const { rows: stored } = await db.query('select id from slide where deck_id = $1', [deckId]);
      const { rows: events } = await db.query(
        `select aggregate_id as id from event where deck_id = $1 and event_type = 'slide.created'`,
        [deckId],
      );
      expect(
        { status: response.status, stored: stored.length, events: events.length },
        response.text,
      ).toEqual({ status: 201, stored: 1, events: 1 });
      expect(stored[0].id).toBe(response.body.id);
      expect(events[0].id).toBe(response.body.id);
    } finally {
      await deckLock.rollback();
      await tableLock.rollback();
    }
  }, 30_000);
});

describe('the time of a one-trip write’s event', () => {
  it('is when it wrote, after the deck’s lock: a reorder that held the lock first has the earlier event', async () => {
    const deckId = await newDeck();
    const ids: string[] = [];
    for (const title of ['A', 'B']) {
      ids.push((await user.post(`/api/decks/${deckId}/slides`, { title })).body.id);
    }
    const tableLock = await openTransaction(t.databaseUrl);
    let answers: { status: number; text: string }[];
    try {
      await tableLock.query('lock table slide in share mode');
      // The reorder takes the deck's lock, then waits here to move the slides …
      const reorder = user.put(`/api/decks/${deckId}/slides/reorder`, { slideIds: [...ids].reverse() });
      await waitForTableLockWaiter(t.databaseUrl, 'slide');
      // … while the create, sent now, waits for the deck's lock: it writes after the reorder.
      const create = user.post(`/api/decks/${deckId}/slides`, { title: 'C' });
      await waitForLockWaiters(t.databaseUrl, 2);
      await tableLock.rollback();
      answers = await Promise.all([reorder, create]);
    } finally {
      await tableLock.rollback();
    }
    expect(
      answers.map((a) => a.status),
      answers.map((a) => a.text).join('\n'),
    ).toEqual([200, 201]);
    // `seq` is the order of the inserts, which under the deck's lock is the order of the writes.
    const typesBy = async (order: string) =>
      (
        await db.query(`select event_type from event where deck_id = $1 order by ${order}`, [deckId])
      ).rows.map((row) => row.event_type);
    const written = await typesBy('seq');
    expect(written.slice(-2)).toEqual(['deck.slides_reordered', 'slide.created']);
    expect(await typesBy('occurred_at, id')).toEqual(written);
  });
});
