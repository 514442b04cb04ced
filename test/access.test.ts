import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LEVELS, type Access, PROCEDURE_ACCESS, type ProcedureAccess } from '../domain/auth/access.ts';
import { checkDeclaredAccess, restRoutes } from '../rest/route-table.ts';
import { publicProcedure } from '../routers/trpc.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import { expectProblem, HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { createResources, snapshot } from './helpers/resources.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * The access walker (api.md, "Who may do what"): every route of the route table (the list the
 * OpenAPI document and the 401 walker read), for every kind of caller, with a schema-valid
 * request: 403 exactly where the caller's access does not cover the route, and then nothing
 * written; neither 401 nor 403 where it does.
 */

/** api.md's access table, restated route by route: the routes' declared access must agree. */
function documentedAccess(method: string, path: string): ProcedureAccess {
  if (path === '/auth/login') return 'public';
  // Only a user has a session to change the password of or to end (docs/decisions/006-access-in-procedure-meta.md).
  if (path === '/auth/password' || path === '/auth/logout') return 'user';
  // The two GETs the table names apart from "every GET": the user list and the API keys.
  if (path.startsWith('/api-keys')) return 'owner';
  if (path.startsWith('/users')) return method === 'GET' ? 'admin' : 'owner';
  if (method === 'GET') return 'read';
  if (path.startsWith('/notifications/')) return 'admin';
  return 'write';
}

interface Caller {
  name: string;
  access: Access;
  /** A user session (not an API key): may do what `user` routes allow. */
  user: boolean;
  /** A client signed in as this caller, fresh (a logout ends the one before). */
  signIn(): Promise<HttpClient>;
}

let t: TestApp;
let ids: Record<string, string> = {};
const ORGANIZATION = 'Access Org';

/** A client that sends an API key (`Authorization: Bearer …`) with every request, and no cookie. */
class KeyClient extends HttpClient {
  readonly secret: string;
  constructor(baseUrl: string, secret: string) {
    super(baseUrl);
    this.secret = secret;
  }
  override request(
    method: string,
    path: string,
    options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ) {
    return super.request(method, path, {
      ...options,
      headers: { ...options.headers, authorization: `Bearer ${this.secret}` },
    });
  }
}

/** One entry per kind of caller: users of each role, and API keys of each access. */
const callers: Caller[] = [
  ...(['member', 'admin', 'owner'] as const).map((role) => ({
    name: role,
    access: ({ member: 'write', admin: 'admin', owner: 'owner' } as const)[role],
    user: true,
    signIn: () => t.signedInClient(ORGANIZATION, role),
  })),
  ...(['read', 'write', 'admin'] as const).map((access) => ({
    name: `${access} API key`,
    access,
    user: false,
    async signIn() {
      const owner = await t.signedInClient(ORGANIZATION, 'owner');
      const created = await owner.post('/api/api-keys', { name: `${access} key`, access });
      return new KeyClient(t.url, created.body.secret);
    },
  })),
];

function covers(caller: Caller, access: ProcedureAccess): boolean {
  if (access === 'public') return true;
  if (access === 'operator') return false;
  if (access === 'user') return caller.user;
  return ACCESS_LEVELS.indexOf(caller.access) >= ACCESS_LEVELS.indexOf(access);
}

/** A schema-valid request to the route; `real` puts the organization's own resources in the path. */
function send(client: HttpClient, route: (typeof restRoutes)[number], real: boolean): Promise<HttpResponse> {
  const { method, path } = route.route;
  const url = `/api${path.replace(/\{(\w+)\}/g, (_m, name: string) => (real && ids[name]) || randomUUID())}`;
  if (route.kind === 'multipart') return client.upload(url, { name: 'file.png', bytes: png(4, 3) });
  if (method === 'GET' || method === 'DELETE') return client.request(method, url);
  const json = fixtures.validBodies[`${method} ${path}`] ?? {};
  return client.request(method, url, { json });
}

beforeAll(async () => {
  t = await startTestApp();
  ids = await createResources(t, await t.signedInClient(ORGANIZATION, 'owner'));
});
afterAll(() => t.close());

describe('declared access', () => {
  it('every route declares one, as api.md’s table says', () => {
    for (const { route, access } of restRoutes) {
      expect(PROCEDURE_ACCESS, `${route.method} ${route.path}`).toContain(access);
      expect(access, `${route.method} ${route.path}`).toBe(documentedAccess(route.method, route.path));
    }
  });

  it('a procedure without meta.access stops the start, and is refused if ever called', async () => {
    const undeclared = publicProcedure.input((value) => value).query(() => 'answered');
    expect(() => checkDeclaredAccess({ 'stray.procedure': undeclared as never })).toThrow(
      /without a meta.access: stray.procedure/,
    );
    await expect(
      undeclared({
        ctx: { auth: null, operator: false } as never,
        path: 'stray.procedure',
        type: 'query',
        getRawInput: async () => ({}),
        signal: undefined,
        batchIndex: 0,
      }),
    ).rejects.toThrow(/declares no meta.access/);
  });
});

describe.each(callers.map((caller) => [caller.name, caller] as const))('as %s', (_name, caller) => {
  let client: HttpClient;
  beforeAll(async () => {
    client = await caller.signIn();
  });

  it.each(restRoutes.map((route) => [`${route.route.method} ${route.route.path}`, route] as const))(
    '%s',
    async (_route, route) => {
      if (!covers(caller, route.access)) {
        // The organization's own resource: 403 before anything is looked up or written.
        const before = await snapshot(t);
        const problem = expectProblem(await send(client, route, true), 403, 'FORBIDDEN');
        expect(problem.detail).toContain(route.access === 'user' ? 'user session' : `${route.access} access`);
        expect(await snapshot(t)).toEqual(before);
        return;
      }
      const response = await send(client, route, false);
      expect([401, 403], response.text).not.toContain(response.status);
      // A logout ends this caller's session: the next route gets a fresh one.
      if (route.route.path === '/auth/logout') client = await caller.signIn();
    },
  );
});

describe('order of refusals', () => {
  it('401 before 403 before the input: nobody signed in, then too little access, then a bad body', async () => {
    const member = await t.signedInClient(ORGANIZATION, 'member');
    const malformed = { body: '{"email": ', headers: { 'content-type': 'application/json' } };
    expectProblem(await t.client().request('POST', '/api/users', malformed), 401, 'UNAUTHORIZED');
    expectProblem(await member.request('POST', '/api/users', malformed), 403, 'FORBIDDEN');
    expectProblem(await member.post('/api/users', { unknown: 'field' }), 403, 'FORBIDDEN');
    expectProblem(await member.patch('/api/users/not-a-uuid', { role: 'nobody' }), 403, 'FORBIDDEN');
    const owner = await t.signedInClient(ORGANIZATION, 'owner');
    expectProblem(await owner.request('POST', '/api/users', malformed), 400, 'BAD_REQUEST');
  });
});

describe('over /trpc', () => {
  it('the same access holds: 403 FORBIDDEN before the input is read, nothing written', async () => {
    const member = await t.signedInClient(ORGANIZATION, 'member');
    const before = await snapshot(t);
    const add = await member.request('POST', '/trpc/users.addUser', { json: { nonsense: true } });
    const remove = await member.request('POST', '/trpc/users.deleteUser', { json: { userId: ids.userId } });
    const list = await member.get('/trpc/users.listUsers');
    for (const response of [add, remove, list]) {
      expect(response.status, response.text).toBe(403);
      expect(response.body.error.data.code).toBe('FORBIDDEN');
      expect(response.body.error.message).toMatch(/needs (admin|owner) access/);
    }
    expect(await snapshot(t)).toEqual(before);
    // Operators' procedures do not exist over HTTP, whoever asks.
    const owner = await t.signedInClient(ORGANIZATION, 'owner');
    const operator = await owner.request('POST', '/trpc/admin.setPassword', {
      json: { email: owner.email, password: 'taken-over-password' },
    });
    expect(operator.status).toBe(404);
    expect(
      (await t.client().post('/api/auth/login', { email: owner.email, password: owner.password })).status,
    ).toBe(200);
  });
});

describe('too little access for a resource that is not there', () => {
  it("another organization's resource and a missing one are a 404 whatever the access; the caller's own a 403", async () => {
    const owner = await t.signedInClient(ORGANIZATION, 'owner');
    const deckId = (await owner.post('/api/decks', { name: 'Ours' })).body.id as string;
    const strangerDeck = (await (await t.signedInClient()).post('/api/decks', { name: 'Theirs' })).body
      .id as string;
    const readKey = (await owner.post('/api/api-keys', { name: 'reader', access: 'read' })).body
      .secret as string;
    const reader = t.client();
    const asReader = (method: string, path: string, json?: unknown) =>
      reader.request(method, path, { json, headers: { authorization: `Bearer ${readKey}` } });
    const member = await t.signedInClient(ORGANIZATION, 'member');
    const strangerUser = await t.signedInClient();
    const before = await snapshot(t);

    expectProblem(await asReader('DELETE', `/api/decks/${deckId}`), 403, 'FORBIDDEN');
    const theirs = expectProblem(await asReader('DELETE', `/api/decks/${strangerDeck}`), 404, 'NOT_FOUND');
    const missingId = randomUUID();
    const absent = expectProblem(await asReader('DELETE', `/api/decks/${missingId}`), 404, 'NOT_FOUND');
    expect(theirs.detail).toBe(`Deck ${strangerDeck} was not found`);
    expect(absent.detail).toBe(`Deck ${missingId} was not found`);
    // Over /trpc alike.
    const trpc = async (id: string) =>
      (await asReader('POST', '/trpc/decks.deleteDeck', { deckId: id })).body.error.data.code;
    expect([await trpc(deckId), await trpc(strangerDeck)]).toEqual(['FORBIDDEN', 'NOT_FOUND']);
    // A member on the owner's routes: their own organization's user is a 403, another's a 404.
    expectProblem(await member.patch(`/api/users/${owner.userId}`, { name: 'X' }), 403, 'FORBIDDEN');
    expectProblem(await member.patch(`/api/users/${strangerUser.userId}`, { name: 'X' }), 404, 'NOT_FOUND');
    expect(await snapshot(t)).toEqual(before);
  });
});
