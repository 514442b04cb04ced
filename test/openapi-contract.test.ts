import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './helpers/http-client.ts';
import { contractMismatch } from './helpers/openapi-contract.ts';

/**
 * The check every HTTP test's answers pass through (test/helpers/openapi-contract.ts) must not
 * be able to hide: a stand-in server answers documented routes wrongly, and each wrong answer
 * fails the request that got it, naming the operation, the status and what differs.
 */

type Reply = { status: number; type?: string; body?: string; headers?: Record<string, string> };
let reply: Reply;
let server: Server;
let client: HttpClient;

const deck = {
  id: randomUUID(),
  organizationId: randomUUID(),
  name: 'Q4',
  voiceId: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};
const problem = (status: number, title: string, code: string) =>
  JSON.stringify({ type: 'about:blank', title, status, code, detail: 'x' });

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(reply.status, {
      ...(reply.type ? { 'content-type': reply.type } : {}),
      ...reply.headers,
    });
    response.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('every answer is checked against the OpenAPI document', () => {
  it('passes a right answer', async () => {
    reply = { status: 200, type: 'application/json', body: JSON.stringify(deck) };
    expect((await client.get(`/api/decks/${deck.id}`)).status).toBe(200);
  });

  it.each<[string, Reply, string, string]>([
    [
      'a body missing a required field',
      { status: 200, type: 'application/json', body: JSON.stringify({ ...deck, name: undefined }) },
      'GET',
      "decks-getDeck (GET /decks/{deckId}) answered 200: body must have required property 'name'",
    ],
    [
      'a field of the wrong type',
      { status: 200, type: 'application/json', body: JSON.stringify({ ...deck, createdAt: 5 }) },
      'GET',
      'answered 200: body /createdAt must be string',
    ],
    [
      'an undocumented field',
      { status: 200, type: 'application/json', body: JSON.stringify({ ...deck, secret: 'x' }) },
      'GET',
      'body must NOT have additional properties ("secret")',
    ],
    [
      'an undocumented status',
      { status: 418, type: 'application/problem+json', body: problem(418, "I'm a Teapot", 'TEAPOT') },
      'GET',
      'decks-getDeck (GET /decks/{deckId}) answered 418; documented: 200, 400',
    ],
    [
      'a 200 where the operation documents 201',
      { status: 200, type: 'application/json', body: JSON.stringify(deck) },
      'POST',
      'decks-createDeck (POST /decks) answered 200; documented: 201',
    ],
    [
      'an error that is not problem details',
      { status: 404, type: 'application/json', body: JSON.stringify({ message: 'no' }) },
      'GET',
      'answered 404: content type application/json; documented: application/problem+json',
    ],
    [
      'a problem missing its code',
      {
        status: 404,
        type: 'application/problem+json',
        body: JSON.stringify({ title: 'Not Found', status: 404 }),
      },
      'GET',
      'answered 404: body must have required property',
    ],
    [
      'a rate-limit header that is no number',
      {
        status: 200,
        type: 'application/json',
        body: JSON.stringify(deck),
        headers: { 'RateLimit-Remaining': 'many' },
      },
      'GET',
      'header RateLimit-Remaining: "many" must be integer',
    ],
  ])('fails the request on %s', async (_name, wrong, method, message) => {
    reply = wrong;
    const path = method === 'POST' ? '/api/decks' : `/api/decks/${deck.id}`;
    await expect(
      client.request(method, path, method === 'POST' ? { json: { name: 'x' } } : {}),
    ).rejects.toThrow(message);
  });

  it('fails an /api path the document does not have unless it is a 404 problem', async () => {
    reply = { status: 200, type: 'application/json', body: '{}' };
    await expect(client.get('/api/nothing-here')).rejects.toThrow(
      'no documented path; answered 200, expected 404',
    );
    reply = { status: 404, type: 'application/problem+json', body: problem(404, 'Not Found', 'NOT_FOUND') };
    expect((await client.get('/api/nothing-here')).status).toBe(404);
  });

  it('skips only the listed paths the document leaves out on purpose', () => {
    const answer = { method: 'GET', status: 200, header: () => null, text: 'ok' };
    expect(contractMismatch({ ...answer, path: '/healthz' })).toBeUndefined();
    expect(contractMismatch({ ...answer, path: '/trpc/decks.listDecks' })).toBeUndefined();
    expect(contractMismatch({ ...answer, path: '/elsewhere' })).toMatch(
      'no documented path; answered 200, expected 404',
    );
  });
});
