/**
 * The tRPC client of the deck service: `import { createDeckClient } from '@deck-service/client'`.
 * Typed by the service's router, talking to `/trpc` with an API key. Only types come from the
 * server's code: the build bundles them into `dist/index.d.ts` (no server module is named there)
 * and strips them from the JavaScript, which needs `@trpc/client` alone (scripts/build-client.ts).
 */
import {
  createTRPCClient,
  httpBatchLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../routers/app-router.ts';
import { serviceAddress } from './base-url.ts';

export type { AppRouter };
/** Every procedure's input, e.g. `RouterInputs['decks']['createDeck']`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, e.g. `RouterOutputs['decks']['getDeck']`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export { TRPCClientError };

export interface DeckClientOptions {
  /** Where the service listens, e.g. `https://decks.example.com` (no `/trpc`). */
  baseUrl: string;
  /** An API key (`dk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** A fetch of your own (proxies, tests); the global one by default. */
  fetch?: typeof globalThis.fetch;
  /** Calls made together are sent in one request, up to this many (default 10). */
  maxBatchSize?: number;
  /**
   * For subscriptions (`events.onEvent`, `generation.onProgress`, over Server-Sent Events): an
   * EventSource that takes a `fetch` option, such as the `eventsource` package's, so that the API
   * key goes in a header (a browser's own EventSource cannot send one).
   */
  EventSource?: EventSourceWithFetch;
}

/** An EventSource class whose init takes a `fetch` (the `eventsource` package's, version 3 or later). */
export type EventSourceWithFetch = new (
  url: string,
  init?: { fetch?: (input: string | URL, init?: RequestInit) => Promise<Response> },
) => {
  readonly CLOSED: number;
  readonly CONNECTING: number;
  readonly OPEN: number;
  readyState: number;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  removeEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
};

export type DeckClient = ReturnType<typeof createTRPCClient<AppRouter>>;

export function createDeckClient(options: DeckClientOptions): DeckClient {
  if (!options.apiKey.startsWith('dk_')) throw new TypeError('apiKey must be a deck service API key (dk_…)');
  const url = `${serviceAddress(options.baseUrl)}/trpc`;
  const authorization = `Bearer ${options.apiKey}`;
  const fetchOf = options.fetch ?? globalThis.fetch;
  const batch = httpBatchLink<AppRouter>({
    url,
    maxItems: options.maxBatchSize ?? 10,
    headers: () => ({ authorization }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const { EventSource } = options;
  if (!EventSource) return createTRPCClient<AppRouter>({ links: [batch] });
  return createTRPCClient<AppRouter>({
    links: [
      // Subscriptions over SSE (each resumes from its last event when its connection drops), the rest batched.
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url,
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) => {
              const headers = new Headers(init?.headers);
              headers.set('authorization', authorization);
              return fetchOf(input, { ...init, headers });
            },
          },
        }),
        false: batch,
      }),
    ],
  });
}
