/**
 * The tRPC client of the deck service: `import { createDeckClient } from '@deck-service/client'`.
 * Typed by the service's router, talking to `/trpc` with an API key. Only types come from the
 * server's code: the build bundles them into `dist/index.d.ts` (no server module is named there)
 * and strips them from the JavaScript, which needs `@trpc/client` alone (scripts/build-client.ts).
 */
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
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
}

export type DeckClient = ReturnType<typeof createTRPCClient<AppRouter>>;

export function createDeckClient(options: DeckClientOptions): DeckClient {
  if (!options.apiKey.startsWith('dk_')) throw new TypeError('apiKey must be a deck service API key (dk_…)');
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${serviceAddress(options.baseUrl)}/trpc`,
        maxItems: options.maxBatchSize ?? 10,
        headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}
