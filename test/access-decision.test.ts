import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as access from '../domain/auth/access.ts';
import { png } from './helpers/files.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// The one access decision, watched: the real function, called through (a spy, nothing stubbed).
vi.mock('../domain/auth/access.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../domain/auth/access.ts')>();
  return { ...actual, accessDenial: vi.fn(actual.accessDenial) };
});
const decisions = vi.mocked(access.accessDenial);

/**
 * One access decision per call (issue 23): REST decides in `admit`, before it reads the body,
 * /trpc when it counts the calls, and the procedure's middleware takes that decision from the
 * context instead of deciding again; an in-process call is decided by the middleware.
 */
let t: TestApp;
let db: pg.Client;
let owner: HttpClient & { organizationId: string };
let readKey: string;
let deckId: string;

beforeAll(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  owner = await t.signedInClient();
  deckId = (await owner.post('/api/decks', { name: 'Decided' })).body.id;
  readKey = (await owner.post('/api/api-keys', { name: 'Reader', access: 'read' })).body.secret;
});
afterAll(async () => {
  await db.end();
  await t.close();
});
beforeEach(() => {
  decisions.mockClear();
});

const asReader = () => ({ authorization: `Bearer ${readKey}` });
const decks = async (name: string) =>
  (await db.query('select count(*)::int as n from deck where name = $1', [name])).rows[0].n;

describe('one access decision per call', () => {
  it('REST: a read, a write and an upload are each decided once', async () => {
    expect((await owner.get('/api/decks')).status).toBe(200);
    expect(decisions).toHaveBeenCalledTimes(1);
    decisions.mockClear();
    expect((await owner.post('/api/decks', { name: 'Once' })).status).toBe(201);
    expect(decisions).toHaveBeenCalledTimes(1);
    decisions.mockClear();
    expect((await owner.upload('/api/images', { name: 'a.png', bytes: png(4, 4) })).status).toBe(201);
    expect(decisions).toHaveBeenCalledTimes(1);
  });

  it('REST: a refused request is decided once, and runs nothing', async () => {
    const refused = await t.client().request('POST', '/api/decks', {
      json: { name: 'Refused over REST' },
      headers: asReader(),
    });
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(decisions).toHaveBeenCalledTimes(1);
    expect(await decks('Refused over REST')).toBe(0);
  });

  it('/trpc: a heavy call (decided to count it) is decided once; a batch once per call', async () => {
    const missingFaq = { faqId: '00000000-0000-4000-8000-000000000000', cannedAnswer: 'x' };
    const heavy = await owner.request('POST', '/trpc/faqs.updateFaq', { json: missingFaq });
    expect(heavy.status).toBe(404);
    expect(decisions).toHaveBeenCalledTimes(1);
    decisions.mockClear();
    const batch = await owner.request('POST', '/trpc/decks.updateDeck,faqs.updateFaq?batch=1', {
      json: { 0: { deckId, name: 'Renamed once' }, 1: missingFaq },
    });
    expect(batch.status).toBe(207);
    expect(decisions).toHaveBeenCalledTimes(2);
  });

  it('/trpc: a refused call is decided once, and runs nothing', async () => {
    const refused = await t.client().request('POST', '/trpc/decks.createDeck', {
      json: { name: 'Refused over trpc' },
      headers: asReader(),
    });
    expect(refused.status).toBe(403);
    expect(decisions).toHaveBeenCalledTimes(1);
    expect(await decks('Refused over trpc')).toBe(0);
  });

  it('in process: the middleware decides, once', async () => {
    await t.createUser({
      organization: 'In process',
      email: 'in-process@example.test',
      password: 'a-long-password',
    });
    expect(decisions).toHaveBeenCalledTimes(1);
  });
});
