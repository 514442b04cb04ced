import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../routers/app-router.ts';
import { startSignedIn } from './helpers/app-setup.ts';
import type { HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Issue 38, finding 10: two `slides.createSlide` of one /trpc batch were numbered in reverse
 * order of the batch (tRPC starts a batch's calls together). A batch's mutations are applied in
 * the batch's order (routers/batch-order.ts).
 */
let t: TestApp;
let user: HttpClient & { organizationId: string };

beforeAll(async () => ({ t, user } = await startSignedIn()));
afterAll(() => t.close());

/** @trpc/client with its batch link, carrying the user's cookie; counts the HTTP requests it makes. */
function batchingClient() {
  const requests: string[] = [];
  const client = createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${t.url}/trpc`,
        async fetch(url, init) {
          requests.push(String(url));
          const headers = new Headers(init?.headers);
          headers.set('cookie', [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
          return fetch(url, { ...init, headers } as RequestInit);
        },
      }),
    ],
  });
  return { client, requests };
}

describe('a /trpc batch of mutations', () => {
  it.each([2, 5])('numbers %i slides created in one batch in the batch’s order', async (count) => {
    const deck = (await user.post('/api/decks', { name: `Batch of ${count}` })).body;
    const { client, requests } = batchingClient();
    const titles = Array.from({ length: count }, (_, i) => `Slide ${i}`);
    // Made in one tick: the batch link sends them as one request.
    const created = await Promise.all(
      titles.map((title) => client.slides.createSlide.mutate({ deckId: deck.id, title })),
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]).toContain('batch=1');
    expect(created.map((slide) => [slide.title, slide.orderIndex])).toEqual(
      titles.map((title, i) => [title, i]),
    );
    const listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.map((slide: { title: string }) => slide.title)).toEqual(titles);
  });

  it('goes on in order past a call that fails, and past one to no procedure', async () => {
    const deck = (await user.post('/api/decks', { name: 'Batch with refusals' })).body;
    const { client, requests } = batchingClient();
    const results = await Promise.allSettled([
      client.slides.createSlide.mutate({ deckId: deck.id, title: 'First' }),
      client.slides.createSlide.mutate({ deckId: deck.id, title: 'Too far', orderIndex: 5 }),
      // A path the router does not have: tRPC's 404 for that call alone.
      (
        client as unknown as { slides: { noSuch: { mutate: (input: unknown) => Promise<unknown> } } }
      ).slides.noSuch.mutate({}),
      client.slides.createSlide.mutate({ deckId: deck.id, title: 'Second', orderIndex: 0 }),
      client.slides.createSlide.mutate({ deckId: deck.id, title: 'Third' }),
    ]);
    expect(requests).toHaveLength(1);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.map((slide: { title: string }) => slide.title)).toEqual(['Second', 'First', 'Third']);
  });
  it('refuses at once, writing nothing, a POST batch that mixes a query or a subscription with mutations', async () => {
    const deck = (await user.post('/api/decks', { name: 'Mixed batch' })).body;
    const cookie = [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    // A call that never reached a middleware would never end its turn: the mutations after it would
    // wait for ever. tRPC refuses such a batch whole, before any call runs.
    const paths = ['auth.getCurrentUser', 'slides.createSlide', 'events.onEvent', 'slides.createSlide'];
    const body = {
      1: { deckId: deck.id, title: 'After a query' },
      3: { deckId: deck.id, title: 'After a stream' },
    };
    const response = await fetch(`${t.url}/trpc/${paths.join(',')}?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/mix/);
    expect((await user.get(`/api/decks/${deck.id}/slides`)).body.slides).toEqual([]);
  });
});
