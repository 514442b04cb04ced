import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../rest/route-table.ts';
import { png } from './helpers/files.ts';
import * as fixtures from './helpers/fixtures.ts';
import type { HttpResponse } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let document: any;

beforeAll(async () => {
  t = await startTestApp();
  const response = await t.client().get('/api/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
});
afterAll(() => t.close());

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (checked by an independent validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names an absolute server (the origin asked, or PUBLIC_URL), a contact (API_CONTACT_*) and the licence', async () => {
    expect(document.servers).toEqual([{ url: `${t.url}/api` }]);
    const response = await t.client().get('/api/openapi.json');
    expect(response.headers.get('vary')).toMatch(/host/i);
    const fixed = await startTestApp({
      PUBLIC_URL: 'https://decks.example.com/',
      API_CONTACT_EMAIL: 'api@decks.example.com',
      API_CONTACT_URL: 'https://decks.example.com/support',
    });
    try {
      const served = (await fixed.client().get('/api/openapi.json')).body;
      expect(served.servers).toEqual([{ url: 'https://decks.example.com/api' }]);
      // The contact is the operator's to give; without it the document still names one (linters ask).
      expect(served.info.contact).toEqual({
        name: 'The operator of this deck service',
        email: 'api@decks.example.com',
        url: 'https://decks.example.com/support',
      });
      expect(document.info.contact).toEqual({ name: 'The operator of this deck service' });
      expect(document.info.license).toEqual({
        name: 'Proprietary: no licence granted',
        identifier: 'LicenseRef-Proprietary',
      });
    } finally {
      await fixed.close();
    }
  });

  it('documents every REST route, with the success status the route really answers', async () => {
    for (const { route, successStatus } of restRoutes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const successes = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
      expect(successes, `${route.method} ${route.path}`).toEqual([String(successStatus)]);
    }
    expect(document.paths['/decks'].post.responses['201']).toBeDefined();
  });

  it('documents the hand-written routes from the same table (the voice preview answers MP3)', () => {
    const preview = document.paths['/voices/{voiceId}/preview'].get;
    expect(Object.keys(preview.responses['200'].content)).toEqual(['audio/mpeg']);
    expect(preview.security).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
    expect(preview.parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'voiceId', required: true }),
    ]);
    expect(preview.responses['404']).toEqual({ $ref: '#/components/responses/Problem404' });
  });

  it('states each operation’s access, and a 403 wherever it is more than read', () => {
    for (const { route, access } of restRoutes) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      expect(operation['x-access'], `${route.method} ${route.path}`).toBe(access);
      if (access !== 'public' && access !== 'read') expect(operation.responses['403']).toBeDefined();
    }
    expect(document.paths['/users'].get['x-access']).toBe('admin');
    expect(document.paths['/users'].get.responses['403']).toBeDefined();
    expect(document.paths['/users/{userId}'].delete['x-access']).toBe('owner');
  });

  it('authenticates with the session cookie or an API key everywhere but login', () => {
    expect(document.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'session',
    });
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    // An empty list: sign-in needs no caller (no list at all would mean the document's default).
    expect(document.paths['/auth/login'].post.security).toEqual([]);
    // Every other operation accepts either caller, as alternatives.
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path === '/auth/login') continue;
        expect(operation.security, `${method} ${path}`).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
      }
    }
  });

  it('declares every tag it uses, with a description, and describes every operation', () => {
    const declared = new Map(document.tags.map((tag: any) => [tag.name, tag.description]));
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const tag of operation.tags)
          expect(declared.get(tag), `${method} ${path} tag ${tag}`).toBeTruthy();
        expect(operation.description, `${method} ${path}`).toBeTruthy();
        // A description says more than the summary.
        expect(operation.description, `${method} ${path}`).not.toBe(operation.summary);
      }
    }
  });

  it('names every operation <router>-<procedure>, the hand-written voice preview too', () => {
    const ids = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId),
    );
    expect(ids.filter((id) => !/^[a-z][A-Za-z]*-[a-z][A-Za-z]*$/.test(id))).toEqual([]);
    expect(document.paths['/voices/{voiceId}/preview'].get.operationId).toBe('voices-previewVoice');
    for (const { route, kind, ...rest } of restRoutes) {
      if (kind === 'hand-written') continue;
      const procedurePath = (rest as { procedurePath: string }).procedurePath;
      expect(document.paths[route.path][route.method.toLowerCase()].operationId).toBe(
        procedurePath.replace('.', '-'),
      );
    }
  });

  it('requires no body where the service takes none: sign-out and a secret rotation answer 200 without one', async () => {
    expect(document.paths['/auth/logout'].post.requestBody?.required ?? false).toBe(false);
    const rotate = document.paths['/notifications/subscriptions/{subscriptionId}/rotate-secret'].post;
    expect(rotate.requestBody?.required ?? false).toBe(false);
    expect(document.paths['/decks'].post.requestBody.required).toBe(true);
    expect(document.paths['/decks/{deckId}'].patch.requestBody.required).toBe(true);

    const admin = await t.signedInClient();
    const created = await admin.post('/api/notifications/subscriptions', {
      name: 'hook',
      eventType: '*',
      channel: 'webhook',
      channelConfig: { url: 'https://hooks.example.com/deck' },
    });
    expect(created.status).toBe(201);
    const rotated = await admin.request(
      'POST',
      `/api/notifications/subscriptions/${created.body.id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    // A body sent where none is taken is still read, and refused as any body would be: documented too.
    const test = `/api/notifications/subscriptions/${created.body.id}/test`;
    const typed = await admin.request('POST', test, { body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(typed.status).toBe(415);
    expect(
      document.paths['/notifications/subscriptions/{subscriptionId}/test'].post.responses['413'],
    ).toBeDefined();
    expect((await admin.request('POST', '/api/auth/logout')).status).toBe(200);
  });

  it('documents the headers the service sends', async () => {
    const login = document.paths['/auth/login'].post.responses['200'].headers;
    expect(login['Set-Cookie'].required).toBe(true);
    const created = document.paths['/decks'].post.responses['201'].headers;
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed']) {
      expect(created[name], name).toEqual({ $ref: `#/components/headers/${name}` });
    }
    const tooMany = document.components.responses.Problem429.headers;
    expect(tooMany['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(document.components.responses.Problem503.headers['Retry-After'].required).toBe(false);
    expect(document.components.responses.Problem404.headers['Idempotent-Replayed']).toBeDefined();
    // A GET is never replayed.
    expect(document.paths['/decks'].get.responses['200'].headers['Idempotent-Replayed']).toBeUndefined();
    for (const { route, successStatus } of restRoutes.filter((r) => r.successStatus === 201)) {
      const success = document.paths[route.path][route.method.toLowerCase()].responses[String(successStatus)];
      expect(success.headers.Location?.required, `${route.method} ${route.path}`).toBe(true);
    }
  });

  it('answers a create with the Location of what it made, on a replay too', async () => {
    const client = await t.signedInClient();
    const headers = { 'Idempotency-Key': 'location-1' };
    const created = await client.request('POST', '/api/decks', { json: { name: 'Located' }, headers });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/decks/${created.body.id}`);
    expect((await client.get(created.headers.get('location')!)).body).toEqual(created.body);
    const replayed = await client.request('POST', '/api/decks', { json: { name: 'Located' }, headers });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.headers.get('location')).toBe(created.headers.get('location'));
    const key = await client.post('/api/api-keys', { name: 'ci', access: 'read' });
    expect(key.headers.get('location')).toBe(`/api/api-keys/${key.body.apiKey.id}`);
  });

  it('serves a GET at the Location of every create', () => {
    // A path's one parameter is named by an answer field in `location` (`/slides/{id}`): compare shapes.
    const shape = (path: string) => path.replace(/\{[^}]*\}/g, '{}');
    const readable = restRoutes.filter((r) => r.route.method === 'GET').map((r) => shape(r.route.path));
    const creates = restRoutes.flatMap((r) =>
      'location' in r && r.location
        ? [{ create: `${r.route.method} ${r.route.path}`, location: r.location }]
        : [],
    );
    expect(creates.length).toBeGreaterThanOrEqual(8);
    for (const { create, location } of creates) {
      expect(readable, `${create} → ${location}`).toContain(shape(location));
    }
  });

  /** A resource without its signed addresses (each answer signs afresh). */
  const omitAddresses = ({ url: _url, audioUrl: _audioUrl, ...rest }: Record<string, unknown>) => rest;

  it('answers GET at each created resource’s Location with that resource', async () => {
    const owner = await t.signedInClient();
    const follow = async (created: HttpResponse, status = 201) => {
      expect(created.status, created.text).toBe(status);
      const location = created.headers.get('location')!;
      const read = await owner.get(location);
      expect(read.status, location).toBe(200);
      return read.body;
    };
    const deck = await owner.post('/api/decks', { name: 'Located' });
    const deckId = deck.body.id;
    const slide = await owner.post(`/api/decks/${deckId}/slides`, { title: 'Here' });
    expect(await follow(slide)).toEqual(slide.body);
    const faq = await owner.post(`/api/decks/${deckId}/faqs`, { userQuestion: 'Q?', cannedAnswer: 'A.' });
    expect(omitAddresses(await follow(faq))).toEqual(omitAddresses(faq.body));
    const config = await owner.post(`/api/decks/${deckId}/action-configs`, fixtures.actionConfig);
    expect(await follow(config)).toEqual(config.body);
    const image = await owner.upload('/api/images', { name: 'logo.png', bytes: png(4, 3) });
    expect(omitAddresses(await follow(image))).toEqual(omitAddresses(image.body));
    const upload = await owner.post('/api/company/kb/documents/upload-init', {
      filename: 'a.txt',
      contentType: 'text/plain',
      sizeBytes: 3,
    });
    expect((await follow(upload)).id).toBe(upload.body.documentId);
    const key = await owner.post('/api/api-keys', { name: 'ci', access: 'read' });
    expect(await follow(key)).toEqual(key.body.apiKey);
    const user = await owner.post('/api/users', {
      email: `located-${deckId}@example.test`,
      name: 'Lee',
      password: 'a-long-enough-password',
      role: 'member',
    });
    expect(await follow(user)).toEqual(user.body);
    const subscription = await owner.post('/api/notifications/subscriptions', {
      name: 'Log',
      eventType: '*',
      channel: 'console',
    });
    expect(await follow(subscription)).toEqual(subscription.body);
  });

  it('describes errors as problem details', () => {
    const responses = document.paths['/decks/{deckId}'].patch.responses;
    for (const status of ['400', '401', '404', '413', '415', '500']) {
      expect(responses[status], status).toEqual({ $ref: `#/components/responses/Problem${status}` });
    }
    expect(document.paths['/auth/login'].post.responses['429']).toBeDefined();
    const problem = document.components.responses.Problem404.content['application/problem+json'].schema;
    expect(problem).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(document.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'code', 'detail']),
    );
    expect(Object.keys(document.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
  });

  it('answers real responses that match their documented schemas', async () => {
    const client = await t.signedInClient();
    const deck = (await client.post('/api/decks', { name: 'schema check' })).body;
    const schema = document.components.schemas.Deck;
    expect(Object.keys(deck).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(schema.required.sort()).toEqual(Object.keys(deck).sort());
  });
});
