import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../rest/route-table.ts';
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
    expect(document.servers).toEqual([{ url: '/api' }]);
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
    expect(document.components.securitySchemes.sessionCookie).toEqual({
      type: 'apiKey',
      in: 'cookie',
      name: 'session',
    });
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.paths['/auth/login'].post.security).toBeUndefined();
    // Every other operation accepts either caller, as alternatives.
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path === '/auth/login') continue;
        expect(operation.security, `${method} ${path}`).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
      }
    }
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
