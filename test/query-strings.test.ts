import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithDeck } from './helpers/app-setup.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * A query string is checked like a body on every /api route (api.md, "The event log's filters,
 * and query strings"; issue 38, finding 9): an unknown parameter, one given twice where one value
 * is meant, or a value of the wrong form is a 400 with an issue on it. Names of Object.prototype
 * members once reached a plain object in the query parser and answered 500 on every route (found
 * by test/fuzz.test.ts): they are unknown parameters like any other.
 */
let t: TestApp;
let client: HttpClient;
let deckId: string;

beforeAll(async () => ({ t, user: client, deckId } = await startWithDeck('Query strings')));
afterAll(() => t.close());

function expectIssues(response: HttpResponse, issues: { path: (string | number)[]; message: string }[]) {
  const problem = expectProblem(response, 400, 'BAD_REQUEST');
  expect(problem.issues, response.text).toEqual(issues);
}

const decksBefore = async () => (await client.get('/api/decks')).body.decks.length;

describe('an unknown query parameter is a 400 with an issue on it, on every kind of route', () => {
  it.each([
    ['GET', '/api/auth/me?verbose=1', 'verbose'],
    ['GET', '/api/decks?sort=name', 'sort'],
    ['GET', '/api/notifications/events?limit=5&eventtype=slide.created', 'eventtype'],
    ['GET', '/api/voices/list?category=premade', 'category'],
  ])('%s %s', async (method, path, name) => {
    expectIssues(await client.request(method, path), [{ path: [name], message: 'Unknown parameter' }]);
  });

  it('a route with a body (nothing is written)', async () => {
    const before = await decksBefore();
    expectIssues(await client.post('/api/decks?name=Sneaky', { name: 'Q' }), [
      { path: ['name'], message: 'Unknown parameter' },
    ]);
    expect(await decksBefore()).toBe(before);
  });

  it('a path parameter’s name in the query', async () => {
    expectIssues(await client.get(`/api/decks/${deckId}?deckId=${deckId}`), [
      { path: ['deckId'], message: 'Unknown parameter (it is a path parameter)' },
    ]);
    expectIssues(await client.delete(`/api/decks/${deckId}?force=true`), [
      { path: ['force'], message: 'Unknown parameter' },
    ]);
    expect((await client.get(`/api/decks/${deckId}`)).status).toBe(200);
  });

  it('an upload, the hand-written voice preview and the event stream', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    expectIssues(await client.request('POST', '/api/images?public=1', { body: form }), [
      { path: ['public'], message: 'Unknown parameter' },
    ]);
    const voice = (await client.get('/api/voices/list')).body.voices[0].voice_id;
    expectIssues(await client.get(`/api/voices/${encodeURIComponent(voice)}/preview?speed=2`), [
      { path: ['speed'], message: 'Unknown parameter' },
    ]);
    expectIssues(await client.get('/api/notifications/events/stream?limit=5'), [
      { path: ['limit'], message: 'Unknown parameter' },
    ]);
  });

  it.each([
    '/api/auth/me?constructor=1',
    '/api/decks?__proto__=1',
    '/api/decks?__proto__=a&__proto__=b',
    '/api/notifications/events?limit=5&__proto__[limit]=1000',
  ])('names like Object.prototype members are unknown parameters too: GET %s', async (path) => {
    const response = await client.get(path);
    const problem = expectProblem(response, 400, 'BAD_REQUEST');
    expect(
      problem.issues?.every((issue) => issue.message === 'Unknown parameter'),
      response.text,
    ).toBe(true);
  });

  it('lists each unknown parameter, at most 20', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `p${i}`);
    const response = await client.get(`/api/decks?${names.map((name) => `${name}=1`).join('&')}`);
    const problem = expectProblem(response, 400, 'BAD_REQUEST');
    expect(problem.issues).toHaveLength(20);
    expect(problem.issues![0]).toEqual({ path: ['p0'], message: 'Unknown parameter' });
  });
});

describe('a parameter given twice where one value is meant', () => {
  it('is a 400 saying so, on the log and on the stream', async () => {
    expectIssues(await client.get('/api/notifications/events?limit=2&limit=3'), [
      { path: ['limit'], message: 'must be given once' },
    ]);
    expectIssues(await client.get('/api/notifications/events/stream?deckId=a&deckId=b'), [
      { path: ['deckId'], message: 'must be given once' },
    ]);
  });
});

describe('a value of the wrong form', () => {
  it.each([
    ['eventType=slide.nope', 'eventType'],
    ['eventType=slide.', 'eventType'],
    ['deckId=not-a-uuid', 'deckId'],
    ['since=yesterday', 'since'],
    ['offset=-1', 'offset'],
    ['after=nope', 'after'],
  ])('GET /api/notifications/events?%s is a 400 on %s', async (query, name) => {
    const problem = expectProblem(await client.get(`/api/notifications/events?${query}`), 400, 'BAD_REQUEST');
    expect(problem.issues?.length).toBeGreaterThan(0);
    for (const issue of problem.issues!) expect(issue.path).toEqual([name]);
  });

  it('the known parameters still work', async () => {
    const response = await client.get(
      `/api/notifications/events?limit=1&offset=0&eventType=*&deckId=${deckId}`,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.pagination).toMatchObject({ limit: 1, offset: 0, total: 1 });
  });
});
