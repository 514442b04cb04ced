/**
 * The REST client of the deck service: `import { createDeckRestClient } from '@deck-service/client/rest'`.
 * openapi-fetch typed by `paths`, which openapi-typescript generates at build from the OpenAPI
 * document the service serves (`/api/openapi.json`): every `/api` route, its input and its answers.
 */
import type { Client } from 'openapi-fetch';
import createClient from 'openapi-fetch';
import type { components, paths } from '../build/openapi.ts';
import { serviceAddress } from './base-url.ts';

export type { components, paths };
/** A documented schema by name, e.g. `Schema<'Problem'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface DeckRestClientOptions {
  /** Where the service listens, e.g. `https://decks.example.com` (no `/api`). */
  baseUrl: string;
  /** An API key (`dk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** A fetch of your own (proxies, tests); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export type DeckRestClient = Client<paths>;

export function createDeckRestClient(options: DeckRestClientOptions): DeckRestClient {
  if (!options.apiKey.startsWith('dk_')) throw new TypeError('apiKey must be a deck service API key (dk_…)');
  return createClient<paths>({
    // The document's paths are relative to its server, /api.
    baseUrl: `${serviceAddress(options.baseUrl)}/api`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
