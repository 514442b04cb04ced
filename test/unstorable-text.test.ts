import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessCaller } from '../app/in-process.ts';
import { findAuth } from '../domain/auth/callers.ts';
import { eventCountOf } from './helpers/app-setup.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import { expectProblem, type HttpClient, type HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * api.md, "Text": a string holding NUL or a lone UTF-16 surrogate cannot be stored and is a 400
 * with an issue on that field, wherever it appears. This walks every operation of the OpenAPI
 * document: each string in each request body (nested ones and free-form JSON included), each
 * path and query parameter, and each file name.
 */

const NUL = 'x\u0000y';
const LONE_SURROGATE = 'x\ud800y';

let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string };
let document: any;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
  user = await t.signedInClient();
  document = (await user.get('/api/openapi.json')).body;

  const created = async (response: Promise<HttpResponse>) => {
    const answer = await response;
    if (answer.status >= 300) throw new Error(`setup failed: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  ids.deckId = (await created(user.post('/api/decks', { name: 'Text checks' }))).id;
  const slide = await created(
    user.post(`/api/decks/${ids.deckId}/slides`, {
      slideType: 'product_pricing_v1',
      productData: fixtures.productData,
    }),
  );
  ids.slideId = slide.id;
  ids.actionConfigId = (
    await created(user.post(`/api/decks/${ids.deckId}/action-configs`, fixtures.actionConfig))
  ).id;
  ids.faqId = (
    await created(
      user.post(`/api/decks/${ids.deckId}/faqs`, { userQuestion: 'Trial?', cannedAnswer: 'Thirty days.' }),
    )
  ).id;
  ids.subscriptionId = (
    await created(
      user.post('/api/notifications/subscriptions', { name: 'Sub', eventType: '*', channel: 'console' }),
    )
  ).id;
  ids.documentId = (
    await created(
      user.post('/api/company/kb/documents/upload-init', {
        filename: 'a.md',
        contentType: 'text/markdown',
        sizeBytes: 1,
      }),
    )
  ).documentId;
  ids.imageId = (
    await created(user.upload('/api/images', { name: 'a.png', bytes: png(2, 2), type: 'image/png' }))
  ).id;
});
afterAll(() => t.close());

/** A valid body for every JSON operation, so that the one bad string is the only thing wrong. */
const validBodies: Record<string, Record<string, unknown>> = {
  ...(fixtures.validBodies as Record<string, Record<string, unknown>>),
  'POST /auth/login': { email: 'nobody@example.test', password: 'wrong-password' },
  'POST /auth/logout': {},
  'POST /decks': { name: 'A deck', voiceId: 'en-us' },
  'POST /decks/{deckId}/slides': {
    title: 'Pricing',
    narrationScript: 'Here are the plans.',
    bullets: ['one'],
    slideContext: 'context',
    slideType: 'product_pricing_v1',
    productData: fixtures.productData,
  },
  'PUT /decks/{deckId}/slides/reorder': { slideIds: [] },
  'POST /notifications/subscriptions': {
    name: 'Hook',
    eventType: 'slide.*',
    channel: 'webhook',
    channelConfig: { url: 'https://hooks.example.com/deck' },
  },
  'POST /company/kb/documents/upload-init': {
    filename: 'b.md',
    contentType: 'text/markdown',
    sizeBytes: 1,
    displayName: 'B',
  },
};

type Path = (string | number)[];

/** Every place a string goes in a body of this JSON schema (free-form objects get a field `note`). */
function stringPaths(schema: any, body: unknown, path: Path = []): Path[] {
  if (schema?.$ref) {
    return stringPaths(document.components.schemas[schema.$ref.split('/').pop()], body, path);
  }
  const options = schema?.anyOf ?? schema?.oneOf ?? schema?.allOf;
  if (options) return options.flatMap((option: any) => stringPaths(option, body, path));
  const types: string[] = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  const paths: Path[] = [];
  if (types.includes('string')) paths.push(path);
  if (types.includes('array'))
    paths.push(...stringPaths(schema.items, (body as unknown[])?.[0], [...path, 0]));
  if (types.includes('object')) {
    for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
      paths.push(...stringPaths(property, (body as Record<string, unknown>)?.[name], [...path, name]));
    }
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      const existing = Object.keys((body as object | undefined) ?? {}).filter(
        (name) => !(name in (schema.properties ?? {})),
      );
      const name = existing[0] ?? 'note';
      const value = (body as Record<string, unknown>)?.[name];
      const free =
        schema.additionalProperties === true || Object.keys(schema.additionalProperties).length === 0;
      paths.push(
        ...(free ? [[...path, name]] : stringPaths(schema.additionalProperties, value, [...path, name])),
      );
    }
  }
  // A field reached through several anyOf branches is listed once.
  return [...new Map(paths.map((p) => [JSON.stringify(p), p])).values()];
}

function withValueAt(body: unknown, path: Path, value: string): unknown {
  const copy = structuredClone(body ?? {}) as Record<string | number, unknown>;
  let target = copy;
  path.forEach((segment, index) => {
    if (index === path.length - 1) target[segment] = value;
    else {
      const next = target[segment];
      target[segment] =
        next && typeof next === 'object' ? next : typeof path[index + 1] === 'number' ? [] : {};
      target = target[segment] as Record<string | number, unknown>;
    }
  });
  return copy;
}

const eventCount = () => eventCountOf(t, user.organizationId);

function expectIssueOn(response: HttpResponse, path: Path, what: string) {
  const problem = expectProblem(response, 400, 'BAD_REQUEST');
  const paths = (problem.issues ?? []).map((issue) => JSON.stringify(issue.path));
  if (!paths.includes(JSON.stringify(path))) {
    throw new Error(`${what}: no issue on ${JSON.stringify(path)}: ${response.text}`);
  }
}

const concrete = (path: string, replace: Record<string, string> = {}) =>
  `/api${path.replace(/\{(\w+)\}/g, (_, name: string) => replace[name] ?? ids[name]!)}`;

function operations(): { method: string; path: string; operation: any }[] {
  return Object.entries<any>(document.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operation,
    })),
  );
}

describe('text the database cannot store is a 400 on its field, on every operation', () => {
  it('covers every operation of the document', () => {
    expect(operations().length).toBeGreaterThanOrEqual(45);
  });

  it('every string in every JSON body', async () => {
    let checked = 0;
    for (const { method, path, operation } of operations()) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const body = validBodies[`${method} ${path}`];
      if (!body) throw new Error(`no valid body for ${method} ${path}: add one`);
      for (const field of stringPaths(schema, body)) {
        for (const bad of [NUL, LONE_SURROGATE]) {
          const before = await eventCount();
          const response = await user.request(method, concrete(path), {
            json: withValueAt(body, field, bad),
          });
          expectIssueOn(response, field, `${method} ${path} ${JSON.stringify(field)} ${JSON.stringify(bad)}`);
          expect(await eventCount(), `${method} ${path} ${JSON.stringify(field)} wrote an event`).toBe(
            before,
          );
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('every path parameter (NUL, and a surrogate encoded as UTF-8 bytes)', async () => {
    let checked = 0;
    for (const { method, path, operation } of operations()) {
      if (operation.requestBody?.content?.['multipart/form-data']) continue;
      const body = method === 'GET' || method === 'DELETE' ? undefined : validBodies[`${method} ${path}`];
      for (const parameter of (operation.parameters ?? []).filter((p: any) => p.in === 'path')) {
        for (const bad of ['x%00y', '%ED%A0%80']) {
          const before = await eventCount();
          const url = concrete(path, { [parameter.name]: bad });
          const response = await user.request(method, url, { json: body });
          expectIssueOn(response, [parameter.name], `${method} ${path} ${parameter.name}=${bad}`);
          expect(await eventCount()).toBe(before);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(60);
  });

  it('every query parameter', async () => {
    let checked = 0;
    for (const { method, path, operation } of operations()) {
      for (const parameter of (operation.parameters ?? []).filter((p: any) => p.in === 'query')) {
        const response = await user.request(method, `${concrete(path)}?${parameter.name}=x%00y`);
        expectIssueOn(response, [parameter.name], `${method} ${path} ?${parameter.name}`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(9);
  });

  it('every file name of a multipart upload (NUL, sent percent-encoded in filename*)', async () => {
    const uploads = operations().filter((o) => o.operation.requestBody?.content?.['multipart/form-data']);
    expect(uploads.length).toBeGreaterThanOrEqual(2);
    const boundary = 'unstorable-text-boundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''a%00b.png\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      png(2, 2),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    for (const { path } of uploads) {
      const before = await eventCount();
      const response = await user.request('POST', concrete(path), {
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expectIssueOn(response, ['file'], `${path} file name`);
      expect(response.body.issues[0].message).toMatch(/NUL/);
      expect(await eventCount()).toBe(before);
    }
  });
});

describe('the same over /trpc and in process', () => {
  it('/trpc refuses a lone surrogate in a body and NUL in a query input, with the field', async () => {
    const mutation = await user.request('POST', '/trpc/decks.createDeck', { json: { name: LONE_SURROGATE } });
    expect(mutation.status, mutation.text).toBe(400);
    expect(mutation.body.error.data.issues).toContainEqual({ path: ['name'], message: expect.any(String) });
    const input = encodeURIComponent(JSON.stringify({ aggregateId: NUL }));
    const query = await user.get(`/trpc/notifications.listEvents?input=${input}`);
    expect(query.status, query.text).toBe(400);
    expect(query.body.error.data.issues).toContainEqual({
      path: ['aggregateId'],
      message: expect.any(String),
    });
  });

  it('an in-process caller gets the same 400 (a field name included)', async () => {
    const before = await eventCount();
    const auth = await findAuth(t.app.database.orm.em.fork(), user.userId);
    const caller = () => createInProcessCaller(t.app.database.orm, t.app.services, auth);
    await expect(caller().decks.createDeck({ name: LONE_SURROGATE })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      caller().actionConfigs.createActionConfig({
        ...fixtures.actionConfig,
        deckId: ids.deckId!,
        requirementsJson: { [`key${LONE_SURROGATE}`]: 1 },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await eventCount()).toBe(before);
  });
});

describe('timestamps PostgreSQL cannot hold', () => {
  it.each([
    ['since', '0000-01-01T00:00:00Z'],
    ['until', '0000-06-01T00:00:00Z'],
    ['since', '1969-12-31T23:59:59Z'],
    ['until', '9999-12-31T23:59:59-01:00'],
  ])('%s=%s is a 400 on that parameter', async (name, value) => {
    const response = await user.get(`/api/notifications/events?${name}=${encodeURIComponent(value)}`);
    expectIssueOn(response, [name], `${name}=${value}`);
  });

  it('the edges of the range are accepted', async () => {
    const response = await user.get(
      `/api/notifications/events?since=${encodeURIComponent('1970-01-01T00:00:00Z')}&until=${encodeURIComponent('9999-12-31T23:59:59Z')}`,
    );
    expect(response.status, response.text).toBe(200);
  });
});
