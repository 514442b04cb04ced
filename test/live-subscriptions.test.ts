import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeckClient, type DeckClient, TRPCClientError } from '../client/src/index.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';
import { eventually } from './helpers/webhook-receiver.ts';

/**
 * The tRPC subscriptions (api.md, "Live events") through `@trpc/client`'s httpSubscriptionLink, as the
 * client package sets it up (splitLink beside the batch link), with the `eventsource` package's
 * EventSource carrying the API key: `events.onEvent` (tracked ids, resumed by the client) and
 * `generation.onProgress`.
 */
let t: TestApp;
let owner: HttpClient & { organizationId: string };
let apiKey: string;
let client: DeckClient;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient();
  apiKey = (await owner.post('/api/api-keys', { name: 'Subscriber', access: 'write' })).body.secret;
  client = createDeckClient({ baseUrl: t.url, apiKey, EventSource });
});
afterAll(() => t.close());

/** Collects what a subscription yields; `started` resolves once its stream is open. */
function collect<T>(
  // The handlers' value types are the procedure's; `T` names them for the test.
  subscribe: (handlers: never) => { unsubscribe(): void },
) {
  const values: T[] = [];
  const state = { done: false, error: null as unknown };
  let open: () => void = () => {};
  const started = new Promise<void>((resolve) => (open = resolve));
  const subscription = subscribe({
    onStarted: () => open(),
    onData: (value: T) => values.push(value),
    onError: (error: unknown) => {
      state.error = error;
    },
    onComplete: () => {
      state.done = true;
    },
  } as never);
  return { values, state, started, unsubscribe: () => subscription.unsubscribe() };
}

describe('events.onEvent', () => {
  it('yields each event as tracked(id, event), and resumes after a dropped connection without loss or repeat', async () => {
    const url = new URL(t.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    const viaProxy = createDeckClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey, EventSource });
    const events = collect<{ id: string; data: { id: string; eventType: string } }>((handlers) =>
      viaProxy.events.onEvent.subscribe({ eventType: 'deck.*' }, handlers),
    );
    await events.started;
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++)
        ids.push((await client.decks.createDeck.mutate({ name: `R${round}.${i}` })).id);
      await eventually(() => events.values.length >= ids.length);
      proxy.cut();
    }
    for (let i = 0; i < 4; i++) ids.push((await client.decks.createDeck.mutate({ name: `last ${i}` })).id);
    await eventually(() => events.values.length >= ids.length, 20_000);
    expect(events.values.map((value) => value.data.eventType)).toEqual(ids.map(() => 'deck.created'));
    expect(
      events.values.map((value) => (value.data as unknown as { aggregateId: string }).aggregateId),
    ).toEqual(ids);
    for (const value of events.values) expect(value.id).toBe(value.data.id);
    events.unsubscribe();
    await proxy.stop();
  });

  it('refuses past STREAMS_PER_CALLER with TOO_MANY_REQUESTS', async () => {
    const open = Array.from({ length: 5 }, () =>
      collect((handlers) => client.events.onEvent.subscribe({}, handlers)),
    );
    await Promise.all(open.map((subscription) => subscription.started));
    const sixth = collect((handlers) => client.events.onEvent.subscribe({}, handlers));
    await eventually(() => sixth.state.error !== null);
    expect(sixth.state.error).toBeInstanceOf(TRPCClientError);
    expect((sixth.state.error as TRPCClientError<never>).data).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    sixth.unsubscribe();
    for (const subscription of open) subscription.unsubscribe();
  });
});

describe('generation.onProgress', () => {
  it('yields the status at once and after each change, and completes after completed', async () => {
    const deck = await client.decks.createDeck.mutate({ name: 'Narrated' });
    for (const script of ['One.', 'Two.', 'Three.']) {
      await client.slides.createSlide.mutate({ deckId: deck.id, title: script, narrationScript: script });
    }
    await client.generation.startGeneration.mutate({ deckId: deck.id });
    const progress = collect<{ status: string; currentSlide: number; totalSlides: number }>((handlers) =>
      client.generation.onProgress.subscribe({ deckId: deck.id }, handlers),
    );
    await eventually(() => progress.state.done, 30_000);
    expect(progress.state.error).toBeNull();
    const statuses = progress.values;
    expect(statuses.at(-1)).toMatchObject({ status: 'completed', currentSlide: 3, totalSlides: 3 });
    // Each change once, in order: never a status twice in a row, slides done never going back.
    for (let i = 1; i < statuses.length; i++) {
      expect(statuses[i]).not.toEqual(statuses[i - 1]);
      expect(statuses[i]!.currentSlide).toBeGreaterThanOrEqual(statuses[i - 1]!.currentSlide);
    }
    expect(await client.generation.getGenerationStatus.query({ deckId: deck.id })).toEqual(statuses.at(-1));
  }, 60_000);

  it('answers a deck without a job, or of another organization, NOT_FOUND', async () => {
    const deck = await client.decks.createDeck.mutate({ name: 'Silent' });
    const none = collect((handlers) => client.generation.onProgress.subscribe({ deckId: deck.id }, handlers));
    await eventually(() => none.state.error !== null);
    expect((none.state.error as TRPCClientError<never>).data).toMatchObject({ code: 'NOT_FOUND' });
    none.unsubscribe();
  });
});
