import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../routers/app-router.ts';
import { PG_INTEGER_MAX, PG_INTEGER_MIN } from '../routers/shared.schema.ts';
import { inProcessCallerOf, startWithDeck } from './helpers/app-setup.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Issue 38, finding 7: `orderIndex: 2147483648` reached PostgreSQL's `integer` column and was a
 * 500. Every integer input is bounded by its column (`integer()`, routers/shared.schema.ts): past
 * it is a 400 with an issue on every transport, and the OpenAPI document says the bounds.
 */
let t: TestApp;
let user: HttpClient & { organizationId: string; userId: string };
let deckId: string;

beforeAll(async () => ({ t, user, deckId } = await startWithDeck('Bounds')));
afterAll(() => t.close());

/** Inputs stored in a `bigint` column: bounded by JSON's exact integers (±2^53−1) instead. */
const BIGINT_FIELDS = new Set(['sizeBytes']);

/** Every integer of a JSON schema, with its path. */
function integersOf(schema: unknown, path: string[] = []): { path: string[]; schema: Record<string, any> }[] {
  if (Array.isArray(schema)) return schema.flatMap((item) => integersOf(item, path));
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, any>;
  const found = node.type === 'integer' ? [{ path, schema: node }] : [];
  for (const [key, value] of Object.entries(node)) {
    const next = key === 'properties' ? null : key;
    if (key === 'properties') {
      for (const [name, property] of Object.entries<unknown>(value))
        found.push(...integersOf(property, [...path, name]));
    } else if (next !== 'type' && typeof value === 'object') found.push(...integersOf(value, path));
  }
  return found;
}

describe('integer inputs are bounded by their column', () => {
  it('every integer of every procedure’s input has bounds its column holds', () => {
    const procedures = Object.entries(appRouter._def.procedures) as unknown as [
      string,
      { _def: { inputs: z.ZodType[] } },
    ][];
    let seen = 0;
    for (const [path, procedure] of procedures) {
      for (const input of procedure._def.inputs) {
        const schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
        for (const integer of integersOf(schema)) {
          seen += 1;
          const name = integer.path.at(-1) ?? '';
          const [min, max] = BIGINT_FIELDS.has(name)
            ? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
            : [PG_INTEGER_MIN, PG_INTEGER_MAX];
          const where = `${path} ${integer.path.join('.')}`;
          expect(integer.schema.minimum, where).toBeGreaterThanOrEqual(min);
          expect(integer.schema.maximum, where).toBeLessThanOrEqual(max);
        }
      }
    }
    // orderIndex, sizeBytes, and the limit and offset of the paged lists.
    expect(seen).toBeGreaterThanOrEqual(4);
  });

  it('the OpenAPI document shows the bounds', async () => {
    const document = (await t.client().get('/api/openapi.json')).body;
    const slide =
      document.paths['/decks/{deckId}/slides'].post.requestBody.content['application/json'].schema;
    expect(slide.properties.orderIndex).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: PG_INTEGER_MAX,
    });
    const upload =
      document.paths['/company/kb/documents/upload-init'].post.requestBody.content['application/json'].schema;
    expect(upload.properties.sizeBytes).toMatchObject({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    const limit = document.paths['/notifications/events'].get.parameters.find(
      (p: { name: string }) => p.name === 'limit',
    );
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100 });
  });

  it('orderIndex past 2^31−1 is a 400 with an issue on REST, /trpc and in-process, and writes nothing', async () => {
    for (const orderIndex of [2 ** 31, 2 ** 53 - 1, 2 ** 53 + 2]) {
      const problem = expectProblem(
        await user.post(`/api/decks/${deckId}/slides`, { title: 'Far', orderIndex }),
        400,
        'BAD_REQUEST',
      );
      expect(problem.issues).toContainEqual({ path: ['orderIndex'], message: expect.any(String) });
    }
    const trpc = await user.request('POST', '/trpc/slides.createSlide', {
      json: { deckId, title: 'Far', orderIndex: 2 ** 31 },
    });
    expect(trpc.status, trpc.text).toBe(400);
    expect(trpc.body.error.data.issues).toContainEqual({ path: ['orderIndex'], message: expect.any(String) });
    const caller = await inProcessCallerOf(t, user.userId);
    await expect(
      caller.slides.createSlide({ deckId, title: 'Far', orderIndex: 2 ** 31 }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect((await user.get(`/api/decks/${deckId}/slides`)).body.slides).toEqual([]);
  });

  it('orderIndex 2^31−1, the largest the column holds, is the deck’s own 400 (past its slides)', async () => {
    const problem = expectProblem(
      await user.post(`/api/decks/${deckId}/slides`, { title: 'Far', orderIndex: PG_INTEGER_MAX }),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues).toEqual([{ path: ['orderIndex'], message: 'must be at most 0' }]);
  });

  it('sizeBytes past 2^53−1 and limit/offset past theirs are 400s', async () => {
    const upload = await user.post('/api/company/kb/documents/upload-init', {
      filename: 'a.pdf',
      contentType: 'application/pdf',
      sizeBytes: 2 ** 53,
    });
    expect(expectProblem(upload, 400, 'BAD_REQUEST').issues).toContainEqual({
      path: ['sizeBytes'],
      message: expect.any(String),
    });
    for (const query of ['limit=2147483648', 'offset=2147483648', 'offset=-1']) {
      const name = query.split('=')[0]!;
      const problem = expectProblem(await user.get(`/api/notifications/events?${query}`), 400, 'BAD_REQUEST');
      expect(problem.issues).toContainEqual({ path: [name], message: expect.any(String) });
    }
  });
});
