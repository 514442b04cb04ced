import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '../routers/shared.schema.ts';
import { eventCountOf, inProcessCallerOf, startWithDeck } from './helpers/app-setup.ts';
import { actionConfig, productData, tier } from './helpers/fixtures.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string };
let deckId: string;

beforeAll(async () => ({ t, user, deckId } = await startWithDeck('Input checks')));
afterAll(() => t.close());

const eventCount = () => eventCountOf(t, user.organizationId);

/** A raw body, sent as it is (the helper's `json` would re-serialise it). */
const send = (method: string, path: string, body: string, contentType = 'application/json') =>
  user.request(method, path, { body, headers: { 'content-type': contentType } });

function expectIssueAt(response: HttpResponse, path: (string | number)[]) {
  const problem = expectProblem(response, 400, 'BAD_REQUEST');
  expect(
    problem.issues?.map((issue) => issue.path),
    response.text,
  ).toContainEqual(path);
  return problem;
}

const subscription = { name: 'Typed', eventType: '*', channel: 'console' as const };

describe('JSON bodies are validated exactly as their schema says (no coercion)', () => {
  it('a boolean field refuses the string "false" instead of reading it as true', async () => {
    const before = await eventCount();
    const response = await user.post('/api/notifications/subscriptions', {
      ...subscription,
      isActive: 'false',
    });
    expectIssueAt(response, ['isActive']);
    expect((await user.get('/api/notifications/subscriptions')).body.subscriptions).toEqual([]);
    expect(await eventCount()).toBe(before);
  });

  it('a tier price refuses null, false and [5]; highlighted refuses "false"', async () => {
    const slide = (await user.post(`/api/decks/${deckId}/slides`, { slideType: 'product_pricing_v1' })).body;
    for (const price of [null, false, [5], '5', true]) {
      const body = { productData: { ...productData, good: { ...tier('Starter', 1), price } } };
      expectIssueAt(await user.put(`/api/slides/${slide.id}/product-data`, body), [
        'productData',
        'good',
        'price',
      ]);
    }
    const highlighted = {
      productData: { ...productData, best: { ...tier('Scale', 3), highlighted: 'false' } },
    };
    expectIssueAt(await user.put(`/api/slides/${slide.id}/product-data`, highlighted), [
      'productData',
      'best',
      'highlighted',
    ]);
    expectProblem(await user.get(`/api/slides/${slide.id}/product-data`), 404, 'NOT_FOUND');
  });

  it('sizeBytes refuses the string "12"', async () => {
    const response = await user.post('/api/company/kb/documents/upload-init', {
      filename: 'a.pdf',
      contentType: 'application/pdf',
      sizeBytes: '12',
    });
    expectIssueAt(response, ['sizeBytes']);
    expect((await user.get('/api/company/kb/documents')).body.documents).toEqual([]);
  });

  it('numbers JSON cannot hold exactly (1e400) are refused, in typed and in free-form fields', async () => {
    const slide = (await user.post(`/api/decks/${deckId}/slides`, { slideType: 'product_pricing_v1' })).body;
    const body = JSON.stringify({ productData: { ...productData, good: tier('Starter', 1) } }).replace(
      '"price":1',
      '"price":1e400',
    );
    expectIssueAt(await send('PUT', `/api/slides/${slide.id}/product-data`, body), [
      'productData',
      'good',
      'price',
    ]);
    const config = JSON.stringify({ ...actionConfig, requirementsJson: { limit: 0 } }).replace(
      '"limit":0',
      '"limit":1e400',
    );
    expectIssueAt(await send('POST', `/api/decks/${deckId}/action-configs`, config), [
      'requirementsJson',
      'limit',
    ]);
    expect((await user.get(`/api/decks/${deckId}/action-configs`)).body.actionConfigs).toEqual([]);
  });

  it('a REST call leaves the shared schema alone: /trpc and in-process callers still refuse "false"', async () => {
    // Any REST call of the route first: a coercion it switched on in the shared schema would show below.
    const created = await user.post('/api/notifications/subscriptions', { ...subscription, isActive: false });
    expect(created.status, created.text).toBe(201);
    const trpc = await user.request('POST', '/trpc/notifications.createSubscription', {
      json: { ...subscription, isActive: 'false' },
    });
    expect(trpc.status, trpc.text).toBe(400);
    expect(trpc.body.error.data.issues).toContainEqual({ path: ['isActive'], message: expect.any(String) });

    const caller = await inProcessCallerOf(t, user.userId);
    await expect(
      caller.notifications.createSubscription({ ...subscription, isActive: 'false' as unknown as boolean }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const subscriptions = (await user.get('/api/notifications/subscriptions')).body.subscriptions;
    expect(subscriptions.map((s: { id: string }) => s.id)).toEqual([created.body.id]);
    await user.delete(`/api/notifications/subscriptions/${created.body.id}`);
  });
});

describe('a missing required field', () => {
  it('is said to be required, on REST, /trpc and in-process', async () => {
    const rest = expectProblem(await user.post('/api/decks', {}), 400, 'BAD_REQUEST');
    expect(rest.issues).toEqual([{ path: ['name'], message: 'is required' }]);
    const nested = expectProblem(
      await user.post(`/api/decks/${deckId}/action-configs`, { actionType: 'loi' }),
      400,
      'BAD_REQUEST',
    );
    expect(nested.issues).toContainEqual({ path: ['templateMarkdown'], message: 'is required' });
    const trpc = await user.request('POST', '/trpc/decks.createDeck', { json: {} });
    expect(trpc.status, trpc.text).toBe(400);
    expect(trpc.body.error.data.issues).toEqual([{ path: ['name'], message: 'is required' }]);
    const caller = await inProcessCallerOf(t, user.userId);
    const refusal = await caller.decks.createDeck({} as { name: string }).catch((error: unknown) => error);
    expect((refusal as { cause: { issues: { message: string }[] } }).cause.issues[0]!.message).toBe(
      'is required',
    );
    // A value of the wrong type still says what was expected.
    const wrong = expectProblem(await user.post('/api/decks', { name: 5 }), 400, 'BAD_REQUEST');
    expect(wrong.issues![0]!.message).toMatch(/expected string/);
  });
});

describe('a body must be one JSON object', () => {
  it.each(['null', '42', '[]', '"text"', 'true', '[{"name":"x"}]'])(
    '%s is a 400 that says so, and nothing happens',
    async (body) => {
      const before = await eventCount();
      const problem = expectProblem(await send('POST', '/api/decks', body), 400, 'BAD_REQUEST');
      expect(problem.detail).toMatch(/must be a JSON object/);
      // logout with a non-object body must not sign out either
      expectProblem(await send('POST', '/api/auth/logout', body), 400, 'BAD_REQUEST');
      expect((await user.get('/api/auth/me')).status).toBe(200);
      expect(await eventCount()).toBe(before);
    },
  );

  it('a repeated field name is a 400 with an issue on it (not last-one-wins)', async () => {
    const before = await eventCount();
    expectIssueAt(await send('POST', '/api/decks', '{"name":"first","name":"second"}'), ['name']);
    expectIssueAt(
      await send(
        'POST',
        `/api/decks/${deckId}/action-configs`,
        JSON.stringify(actionConfig).replace(
          '"signer":{',
          '"signer":{"required":false,"\\u0072equired":true,',
        ),
      ),
      ['requirementsJson', 'signer', 'required'],
    );
    expect(await eventCount()).toBe(before);
  });

  it('a field named __proto__ is refused, also inside free-form JSON', async () => {
    const before = await eventCount();
    expectIssueAt(await send('POST', '/api/decks', '{"name":"x","__proto__":{"admin":true}}'), ['__proto__']);
    const config = JSON.stringify({ ...actionConfig, requirementsJson: { a: 1 } }).replace(
      '{"a":1}',
      '{"a":1,"__proto__":{"polluted":true}}',
    );
    expectIssueAt(await send('POST', `/api/decks/${deckId}/action-configs`, config), [
      'requirementsJson',
      '__proto__',
    ]);
    expect(await eventCount()).toBe(before);
  });

  it('an unknown field is a 400 also where the procedure takes no fields at all', async () => {
    expectIssueAt(await user.post('/api/auth/logout', { everywhere: true }), ['everywhere']);
    expect((await user.get('/api/auth/me')).status).toBe(200);
    expectIssueAt(await user.post(`/api/decks/${deckId}/generate`, { force: true }), ['force']);
  });

  it('path parameters are not body fields: naming one in the body is an unknown field', async () => {
    const other = (await user.post('/api/decks', { name: 'Other' })).body.id;
    expectIssueAt(await user.patch(`/api/decks/${deckId}`, { deckId: other, name: 'Moved?' }), ['deckId']);
    expect((await user.get(`/api/decks/${other}`)).body.name).toBe('Other');
    expect((await user.get(`/api/decks/${deckId}`)).body.name).toBe('Input checks');
  });
});

describe('nesting', () => {
  it('a 1 MB body of [[[[… is refused promptly, and the service keeps answering', async () => {
    const half = 500_000;
    const started = performance.now();
    const response = await send('POST', '/api/decks', `${'['.repeat(half)}${']'.repeat(half)}`);
    expectProblem(response, 400, 'BAD_REQUEST');
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await user.get('/api/decks')).status).toBe(200);
  });

  it('deeply nested free-form JSON is a 400 naming where, over REST and over /trpc', async () => {
    // Written out by hand: JSON.stringify itself would overflow the stack on it.
    const levels = 5000;
    const nested = `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;
    const { requirementsJson: _, ...others } = actionConfig;
    const fields = JSON.stringify(others).slice(1, -1);
    const before = await eventCount();
    const rest = expectProblem(
      await send('POST', `/api/decks/${deckId}/action-configs`, `{${fields},"requirementsJson":${nested}}`),
      400,
      'BAD_REQUEST',
    );
    expect(rest.detail).toMatch(/nested/);
    const trpc = await send(
      'POST',
      '/trpc/actionConfigs.createActionConfig',
      `{${fields},"deckId":"${deckId}","requirementsJson":${nested}}`,
    );
    expect(trpc.status, trpc.text).toBe(400);
    expect(trpc.body.error.data.issues[0].message).toMatch(/nested/);
    expect(await eventCount()).toBe(before);
  });

  it('the depth limit is the same on REST and on a /trpc call, one level more in a /trpc batch (the object around its inputs)', async () => {
    // `{"name":…,"x":[[…]]}` nested `levels` deep, the input itself being level 1.
    const input = (levels: number) =>
      `{"name":"Deep","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    for (const levels of [MAX_INPUT_DEPTH, MAX_INPUT_DEPTH + 1]) {
      for (const [path, body] of [
        ['/api/decks', input(levels)],
        ['/trpc/decks.createDeck', input(levels)],
        ['/trpc/decks.createDeck?batch=1', `{"0":${input(levels)}}`],
      ]) {
        const response = await send('POST', path!, body!);
        // Too deep: refused before any schema. At the limit: the schema refuses the unknown field.
        expect(response.status, `${path} ${levels}`).toBe(400);
        // (A batch's text counts the object around its inputs: its detail says one level more.)
        const tooDeep = /nested more than \d+ levels deep/;
        if (levels > MAX_INPUT_DEPTH) expect(response.text, path).toMatch(tooDeep);
        else expect(response.text, path).not.toMatch(tooDeep);
      }
    }
  });

  it('nesting up to the limit is fine', async () => {
    let nested: unknown = 'leaf';
    for (let i = 0; i < 20; i += 1) nested = { a: nested };
    const response = await user.post(`/api/decks/${deckId}/action-configs`, {
      ...actionConfig,
      actionType: 'nested',
      requirementsJson: nested,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.requirementsJson).toEqual(nested);
  });
});

describe('media types', () => {
  it('JSON in UTF-8 is accepted with or without charset=utf-8', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON; Charset="UTF-8"',
    ]) {
      const response = await send('PATCH', `/api/decks/${deckId}`, '{"name":"Input checks"}', type);
      expect(response.status, `${type}: ${response.text}`).toBe(200);
    }
  });

  it.each([
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/merge-patch+json',
    'application/x-www-form-urlencoded',
    'text/plain',
  ])('%s is a 415', async (type) => {
    expectProblem(
      await send('PATCH', `/api/decks/${deckId}`, '{"name":"x"}', type),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('bytes that are not UTF-8 are a 400, not silently replaced', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await user.request('POST', '/api/decks', {
      body: bytes,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectProblem(response, 400, 'BAD_REQUEST').detail).toMatch(/UTF-8/);
  });
});

describe('query strings are coerced per the schema, and only there', () => {
  it('numbers in the query are read as numbers', async () => {
    const response = await user.get('/api/notifications/events?limit=2&offset=1');
    expect(response.status, response.text).toBe(200);
    expect(response.body.pagination).toMatchObject({ limit: 2, offset: 1 });
  });

  it.each(['abc', '1e400', '0x10', '2.5', ' 3', 'Infinity'])('limit=%s is a 400 on limit', async (limit) => {
    expectIssueAt(await user.get(`/api/notifications/events?limit=${encodeURIComponent(limit)}`), ['limit']);
  });

  it('a repeated scalar parameter is a 400, and so is an empty number', async () => {
    expectIssueAt(await user.get('/api/notifications/events?limit=2&limit=3'), ['limit']);
    expectIssueAt(await user.get('/api/notifications/events?limit='), ['limit']);
  });

  it('over /trpc, pagination numbers must be numbers', async () => {
    const input = encodeURIComponent(JSON.stringify({ limit: true }));
    const response = await user.get(`/trpc/notifications.listEvents?input=${input}`);
    expect(response.status, response.text).toBe(400);
  });
});
