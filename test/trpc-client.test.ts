import { createTRPCClient, httpLink, type TRPCClient, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter, FullAppRouter } from '../routers/app-router.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** A real @trpc/client that carries one cookie jar, as a browser tab would. */
function trpcClient(jar: Map<string, string>) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${t.url}/trpc`,
        async fetch(url, init) {
          const headers = new Headers(init?.headers);
          if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
          const response = await fetch(url, { ...init, headers } as RequestInit);
          for (const cookie of response.headers.getSetCookie()) {
            const [pair] = cookie.split(';');
            const [name, ...value] = pair!.split('=');
            jar.set(name!, value.join('='));
          }
          return response;
        },
      }),
    ],
  });
}

describe('tRPC clients at /trpc', () => {
  it('share the session cookie and the procedures with the REST routes', async () => {
    const user = await t.signedInClient('Typed Org');
    const trpc = trpcClient(new Map(user.cookies));

    const me = await trpc.auth.getCurrentUser.query({});
    expect(me.organization.name).toBe('Typed Org');

    const deck = await trpc.decks.createDeck.mutate({ name: 'From the typed client' });
    expect(deck.organizationId).toBe(user.organizationId);
    // The same deck, seen over REST.
    expect((await user.get(`/api/decks/${deck.id}`)).body).toEqual(deck);
  });

  it('sign in through tRPC too, and get typed errors with field issues', async () => {
    await t.createUser({ organization: 'Typed 2', email: 'typed@t.test', password: 'typed-password' });
    const jar = new Map<string, string>();
    const trpc = trpcClient(jar);
    await expect(trpc.auth.getCurrentUser.query({})).rejects.toMatchObject({
      data: { code: 'UNAUTHORIZED', httpStatus: 401 },
    });

    const result = await trpc.auth.logIn.mutate({ email: 'typed@t.test', password: 'typed-password' });
    expect(result.user.email).toBe('typed@t.test');
    expect(jar.get('session')).toBeTruthy();
    expect((await trpc.decks.listDecks.query({})).decks).toEqual([]);

    const error = await trpc.decks.createDeck.mutate({ name: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data as any;
    expect(data.code).toBe('BAD_REQUEST');
    expect(data.issues).toEqual([{ path: ['name'], message: expect.any(String) }]);
    expect(data.stack).toBeUndefined();
  });

  it('cap the request body like the REST routes do (413)', async () => {
    const small = await startTestApp({ JSON_BODY_LIMIT_BYTES: '2048' });
    try {
      const user = await small.signedInClient();
      const response = await user.request('POST', '/trpc/decks.createDeck', {
        json: { name: 'x'.repeat(5000) },
      });
      expect(response.status).toBe(413);
      expect(response.body.error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 });
      expect((await user.get('/api/decks')).body.decks).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('do not expose the operators’ procedures', async () => {
    const user = await t.signedInClient();
    // The client's type leaves them out; typed with them anyway, the call is refused.
    const trpc = trpcClient(new Map(user.cookies)) as unknown as TRPCClient<FullAppRouter>;
    await expect(
      trpc.admin.createUser.mutate({ organization: 'X', email: 'x@x.test', password: 'password123' }),
    ).rejects.toMatchObject({ data: { code: 'NOT_FOUND' } });
  });
});
