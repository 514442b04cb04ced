import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Unknown query parameters are ignored (query strings are not strict), whatever their name:
 * names of Object.prototype members once reached a plain object in the query parser and
 * answered 500 on every route (found by test/fuzz.test.ts).
 */
let t: TestApp;
let client: HttpClient;

beforeAll(async () => {
  t = await startTestApp();
  client = await t.signedInClient();
});
afterAll(() => t.close());

describe('query parameters named like Object.prototype members', () => {
  it.each([
    '/api/auth/me?constructor=1',
    '/api/decks?__proto__=1',
    '/api/decks?__proto__=a&__proto__=b',
    '/api/images?toString=x&hasOwnProperty=y&valueOf=z',
    '/api/notifications/events?limit=5&constructor=&__proto__[limit]=1000',
  ])('GET %s is answered as if they were absent', async (path) => {
    const response = await client.get(path);
    expect(response.status, response.text).toBe(200);
  });

  it('does not let __proto__ stand in for a real parameter', async () => {
    const response = await client.get('/api/notifications/events?__proto__=x&limit=1');
    expect(response.status, response.text).toBe(200);
    expect(response.body.pagination.limit).toBe(1);
  });
});
