import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPED_IDS } from '../domain/auth/resource-scope.ts';
import { restRoutes } from '../rest/route-table.ts';
import * as fixtures from './helpers/fixtures.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { createResources, snapshot } from './helpers/resources.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Walks every documented route with an id in its path: a malformed id is a 400 naming the
 * parameter, and another organization's resource is a 404 identical to a missing one —
 * and neither changes anything.
 */

/** Both are 404s, alike but for the ids they name: nothing tells that the foreign resource exists. */
function expectAlike404s(foreign: HttpResponse, absent: HttpResponse) {
  expectProblem(foreign, 404, 'NOT_FOUND');
  expectProblem(absent, 404, 'NOT_FOUND');
  const normalise = (detail: string) => detail.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>');
  expect({ ...foreign.body, detail: normalise(foreign.body.detail) }).toEqual({
    ...absent.body,
    detail: normalise(absent.body.detail),
  });
}

let t: TestApp;
let owner: HttpClient;
let stranger: HttpClient;
/** The stranger's organization calling with an admin API key instead of a session. */
let strangerKey: string;
const ids: Record<string, string> = {};

/**
 * Every route of the table with a path parameter: those whose parameters are ids (a malformed
 * one is refused by its schema) name an organization's resource; the others name something
 * every organization shares (the voice list), walked below on their own.
 */
const routesWithParameters = restRoutes.filter((r) => r.pathParameters.length > 0);
const isIdParameter = (schema: unknown) => {
  const check = schema as { safeParse(value: unknown): { success: boolean } };
  return !check.safeParse('not-a-uuid').success && check.safeParse(randomUUID()).success;
};
const routesWithIds = routesWithParameters.filter((r) =>
  r.pathParameters.every((name) => isIdParameter(r.parameters[name])),
);
const sharedRoutes = routesWithParameters.filter((r) => !routesWithIds.includes(r));

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient('Owner Org');
  stranger = await t.signedInClient('Stranger Org');
  strangerKey = (await stranger.post('/api/api-keys', { name: 'Stranger key', access: 'admin' })).body.secret;
  Object.assign(ids, await createResources(t, owner));
});
afterAll(() => t.close());

function bodyFor(method: string, path: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  const body = fixtures.validBodies[`${method} ${path}`];
  if (body === undefined)
    throw new Error(`add a valid body for ${method} ${path} to test/helpers/fixtures.ts`);
  return body;
}

describe.each(routesWithIds.map((p) => [`${p.route.method} ${p.route.path}`, p.route]))(
  '%s',
  (_name, route) => {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

    it('answers a malformed id with 400 and an issue on that parameter, changing nothing', async () => {
      const before = await snapshot(t);
      const path = `/api${route.path.replace(/\{(\w+)\}/g, 'not-a-uuid')}`;
      const problem = expectProblem(
        await owner.request(route.method, path, { json: bodyFor(route.method, route.path) }),
        400,
        'BAD_REQUEST',
      );
      for (const param of params)
        expect(problem.issues).toContainEqual({ path: [param], message: expect.any(String) });
      expect(await snapshot(t)).toEqual(before);
    });

    it('answers another organization’s resource exactly like a missing one (404), changing nothing', async () => {
      const before = await snapshot(t);
      const foreignPath = `/api${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!)}`;
      const missing = randomUUID();
      const missingPath = `/api${route.path.replace(/\{(\w+)\}/g, missing)}`;
      const json = bodyFor(route.method, route.path);
      const foreign = await stranger.request(route.method, foreignPath, { json });
      const absent = await stranger.request(route.method, missingPath, { json });
      expectAlike404s(foreign, absent);
      expect(await snapshot(t)).toEqual(before);
    });

    it('answers an API key of another organization alike for its resource and a missing one, changing nothing', async () => {
      const before = await snapshot(t);
      const json = bodyFor(route.method, route.path);
      const asKey = (path: string) =>
        t.client().request(route.method, path, { json, headers: { authorization: `Bearer ${strangerKey}` } });
      const foreign = await asKey(
        `/api${route.path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!)}`,
      );
      const absent = await asKey(`/api${route.path.replace(/\{(\w+)\}/g, randomUUID())}`);
      // An admin key may not use the owner's routes (API keys, users), but another organization's
      // resource stays a 404 whatever the access (api.md): never a 403 that tells it exists.
      expectAlike404s(foreign, absent);
      expect(await snapshot(t)).toEqual(before);
    });
  },
);

describe('the ids routes name', () => {
  it('are each known to the 404-before-403 lookup (domain/auth/resource-scope.ts), but the shared voice', () => {
    const named = new Set(
      restRoutes.flatMap((r) => [...r.route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)),
    );
    expect([...named].filter((id) => !SCOPED_IDS.includes(id))).toEqual(['voiceId']);
  });
});

describe('routes naming what every organization shares', () => {
  it('are only the voice preview (a new one must be walked here)', () => {
    expect(sharedRoutes.map((r) => `${r.route.method} ${r.route.path}`)).toEqual([
      'GET /voices/{voiceId}/preview',
    ]);
  });

  it('GET /voices/{voiceId}/preview answers every organization alike, and an unknown voice with 404, changing nothing', async () => {
    const before = await snapshot(t);
    const voiceId = (await owner.get('/api/voices/list')).body.voices[0].voice_id as string;
    const mine = await owner.get(`/api/voices/${voiceId}/preview`);
    const theirs = await stranger.get(`/api/voices/${voiceId}/preview`);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers.get('content-type')).toBe(mine.headers.get('content-type'));
    for (const client of [owner, stranger]) {
      expectProblem(await client.get('/api/voices/not-a-voice/preview'), 404, 'NOT_FOUND');
    }
    expect(await snapshot(t)).toEqual(before);
  });
});
