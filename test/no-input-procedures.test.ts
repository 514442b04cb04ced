import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../rest/route-table.ts';
import type { AppRouter } from '../routers/app-router.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * A procedure that takes no input is called with none (issue 24, finding 3): over tRPC without
 * an argument (`client.auth.getCurrentUser.query()` compiles: `npm run typecheck` checks this
 * file), over REST without a query string or a body, and its OpenAPI operation asks for neither.
 */
let t: TestApp;
let owner: HttpClient & { organizationId: string; email: string };
beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient('No Input Org');
});
afterAll(() => t?.close());

/** Every JSON route whose procedure takes nothing: no path parameter, no field. */
const noInputRoutes = restRoutes.filter(
  (route) =>
    route.kind === 'json' && route.pathParameters.length === 0 && Object.keys(route.shape).length === 0,
);

function sessionClient(user: HttpClient) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${t.url}/trpc`, headers: () => ({ cookie: user.cookieHeader }) })],
  });
}

describe('procedures without input', () => {
  it('are the ones expected (the list below is not empty by accident)', () => {
    expect(noInputRoutes.map((route) => route.kind === 'json' && route.procedurePath).sort()).toEqual([
      'apiKeys.listApiKeys',
      'auth.getCurrentUser',
      'auth.logOut',
      'decks.listDecks',
      'images.listImages',
      'kb.listDocuments',
      'notifications.listSubscriptions',
      'users.listUsers',
      'voices.listVoices',
    ]);
  });

  it('are called by the typed tRPC client without an argument, or with {} as before', async () => {
    const client = sessionClient(owner);
    const me = await client.auth.getCurrentUser.query();
    expect(me.organization.name).toBe('No Input Org');
    const [decks, keys, users, images, documents, subscriptions, voices] = await Promise.all([
      client.decks.listDecks.query(),
      client.apiKeys.listApiKeys.query(),
      client.users.listUsers.query(),
      client.images.listImages.query(),
      client.kb.listDocuments.query(),
      client.notifications.listSubscriptions.query(),
      client.voices.listVoices.query(),
    ]);
    expect(decks.decks).toEqual([]);
    expect(keys.apiKeys).toEqual([]);
    expect(users.users.map((user) => user.email)).toEqual([owner.email]);
    expect([images.images, documents.documents, subscriptions.subscriptions]).toEqual([[], [], []]);
    expect(voices.voices.length).toBeGreaterThan(0);
    expect((await client.auth.getCurrentUser.query({})).user?.email).toBe(owner.email);
  });

  it('sign out over tRPC without an argument', async () => {
    const user = await t.signedInClient('No Input Sign-out');
    expect(await sessionClient(user).auth.logOut.mutate()).toEqual({ success: true });
    expect((await user.get('/api/auth/me')).status).toBe(401);
  });

  it('are answered over REST without a query string or a body', async () => {
    for (const route of noInputRoutes) {
      if (route.kind !== 'json' || route.route.method !== 'GET') continue;
      const response = await owner.get(`/api${route.route.path}`);
      expect(response.status, `${route.route.path}: ${response.text}`).toBe(200);
    }
    const user = await t.signedInClient('No Input REST Sign-out');
    const loggedOut = await user.request('POST', '/api/auth/logout');
    expect(loggedOut.status, loggedOut.text).toBe(200);
    expect((await user.get('/api/auth/me')).status).toBe(401);
  });

  it('are documented without parameters and without a required body', async () => {
    const document = (await owner.get('/api/openapi.json')).body;
    for (const route of noInputRoutes) {
      const operation = document.paths[route.route.path][route.route.method.toLowerCase()];
      const parameters = (operation.parameters ?? []).filter((p: { in: string }) => p.in !== 'header');
      expect(parameters, route.route.path).toEqual([]);
      expect(operation.requestBody?.required ?? false, route.route.path).toBe(false);
    }
  });
});
