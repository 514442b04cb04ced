import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { productData, tier } from './helpers/fixtures.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string };
let deckId: string;

beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient();
});
afterAll(() => t.close());
beforeEach(async () => {
  deckId = (await user.post('/api/decks', { name: 'Slides' })).body.id;
});

const slidesOf = async (id = deckId) => (await user.get(`/api/decks/${id}/slides`)).body.slides as any[];
const order = async (id = deckId) => (await slidesOf(id)).map((s) => `${s.title}@${s.orderIndex}`);
const addSlide = async (body: Record<string, unknown>, id = deckId) => {
  const response = await user.post(`/api/decks/${id}/slides`, body);
  expect(response.status, response.text).toBe(201);
  return response.body;
};
const eventTypes = (aggregateId: string) => t.eventTypes(aggregateId);

describe('POST /api/decks/{deckId}/slides', () => {
  it('creates a slide with every field of the interface (201) and writes slide.created', async () => {
    const { storage } = t.app.services;
    await storage.put(`org/${user.organizationId}/audio/why.mp3`, Buffer.from('ID3'), 'audio/mpeg');
    await storage.put(`org/${user.organizationId}/images/hero.png`, Buffer.from('png'), 'image/png');
    const body = {
      slideId: 'slide-7',
      title: 'Why us',
      narrationScript: 'Here is why customers choose us.',
      bullets: ['Fast', 'Safe'],
      slideContext: 'Differentiators',
      audioUrl: `org/${user.organizationId}/audio/why.mp3`,
      heroImg: `org/${user.organizationId}/images/hero.png`,
      orderIndex: 0,
      slideType: 'standard',
    };
    const slide = await addSlide(body);
    expect(slide).toEqual({
      ...body,
      id: expect.any(String),
      deckId,
      productData: null,
      createdAt: expect.any(String),
      updatedAt: slide.createdAt,
    });
    expect(await eventTypes(slide.id)).toEqual(['slide.created']);
    expect((await slidesOf())[0]).toEqual(slide);
  });

  it('a deck id in capitals names the same deck: answers and events carry the stored spelling', async () => {
    const slide = await addSlide({ title: 'Shouted' }, deckId.toUpperCase());
    expect(slide.deckId).toBe(deckId);
    const reordered = await user.put(`/api/decks/${deckId.toUpperCase()}/slides/reorder`, {
      slideIds: [slide.id],
    });
    expect(reordered.status, reordered.text).toBe(200);
    expect(await eventTypes(deckId)).toEqual(['deck.created', 'deck.slides_reordered']);
    const created = (await user.get(`/api/notifications/events?aggregateId=${slide.id}`)).body.events[0];
    expect(created.payload.deckId).toBe(deckId);
  });

  it('defaults: standard type, empty bullets, null texts, appended last, slide-<n> assigned', async () => {
    const first = await addSlide({});
    const second = await addSlide({ slideId: 'slide-41' });
    const third = await addSlide({});
    expect(first).toMatchObject({
      slideType: 'standard',
      bullets: [],
      title: null,
      orderIndex: 0,
      slideId: 'slide-1',
    });
    expect(second.orderIndex).toBe(1);
    expect(third).toMatchObject({ orderIndex: 2, slideId: 'slide-42' });
  });

  it('inserts at orderIndex and moves later slides down', async () => {
    for (const title of ['a', 'b', 'c']) await addSlide({ title });
    await addSlide({ title: 'first', orderIndex: 0 });
    await addSlide({ title: 'middle', orderIndex: 2 });
    await addSlide({ title: 'last', orderIndex: 5 });
    expect(await order()).toEqual(['first@0', 'a@1', 'middle@2', 'b@3', 'c@4', 'last@5']);
  });

  it('refuses an orderIndex past the end, a duplicate slideId (409), and productData on a standard slide', async () => {
    await addSlide({ title: 'only', slideId: 'slide-1' });
    const past = expectProblem(
      await user.post(`/api/decks/${deckId}/slides`, { orderIndex: 2 }),
      400,
      'BAD_REQUEST',
    );
    expect(past.issues).toEqual([{ path: ['orderIndex'], message: 'must be at most 1' }]);
    expectProblem(await user.post(`/api/decks/${deckId}/slides`, { slideId: 'slide-1' }), 409, 'CONFLICT');
    const misplaced = await user.post(`/api/decks/${deckId}/slides`, { productData });
    expect(expectProblem(misplaced, 400, 'BAD_REQUEST').issues?.[0]?.path).toEqual(['productData']);
    expect(await order()).toEqual(['only@0']);
  });

  it.each([
    ['a malformed slideId', { slideId: 'intro' }, 'slideId'],
    ['an unknown slideType', { slideType: 'video' }, 'slideType'],
    ['bullets of the wrong type', { bullets: 'one, two' }, 'bullets'],
    ['a negative orderIndex', { orderIndex: -1 }, 'orderIndex'],
    ['a fractional orderIndex', { orderIndex: 1.5 }, 'orderIndex'],
    ['an object key of another organization', { heroImg: `org/${randomUUID()}/x.png` }, 'heroImg'],
    [
      'an object key with no object behind it',
      { heroImg: 'org/00000000-0000-4000-8000-000000000000/none.png' },
      'heroImg',
    ],
    ['something that is not an object key', { audioUrl: 'https://cdn.test/a.mp3' }, 'audioUrl'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ])('rejects %s with 400, creating nothing', async (_label, body, field) => {
    const problem = expectProblem(await user.post(`/api/decks/${deckId}/slides`, body), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect(await slidesOf()).toEqual([]);
  });

  it('keeps orderIndex 0…n-1 under concurrent creates in one deck', async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => user.post(`/api/decks/${deckId}/slides`, { title: `s${i}` })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const slides = await slidesOf();
    expect(slides.map((s) => s.orderIndex)).toEqual([...Array(20).keys()]);
    expect(new Set(slides.map((s) => s.slideId)).size).toBe(20);
  });

  it('accepts a pricing slide with its product data', async () => {
    const slide = await addSlide({ slideType: 'product_pricing_v1', productData });
    expect(slide.productData).toEqual(productData);
    const read = await user.get(`/api/slides/${slide.id}/product-data`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ productData });
  });
});

describe('PATCH /api/slides/{slideId}', () => {
  it('edits fields, keeps the rest, and writes slide.updated', async () => {
    const slide = await addSlide({ title: 'Old', bullets: ['x'] });
    const response = await user.patch(`/api/slides/${slide.id}`, {
      title: 'New',
      narrationScript: 'Say this.',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      ...slide,
      title: 'New',
      narrationScript: 'Say this.',
      updatedAt: expect.any(String),
    });
    expect(await eventTypes(slide.id)).toEqual(['slide.created', 'slide.updated']);
  });

  it('refuses orderIndex (use reorder) and an empty change', async () => {
    const slide = await addSlide({});
    const moved = expectProblem(
      await user.patch(`/api/slides/${slide.id}`, { orderIndex: 3 }),
      400,
      'BAD_REQUEST',
    );
    expect(moved.issues).toEqual([{ path: ['orderIndex'], message: 'Unknown field' }]);
    expectProblem(await user.patch(`/api/slides/${slide.id}`, {}), 400, 'BAD_REQUEST');
    expect(await eventTypes(slide.id)).toEqual(['slide.created']);
  });

  it('drops the product data when a pricing slide becomes standard', async () => {
    const slide = await addSlide({ slideType: 'product_pricing_v1', productData });
    const response = await user.patch(`/api/slides/${slide.id}`, { slideType: 'standard' });
    expect(response.body.productData).toBeNull();
    expectProblem(await user.get(`/api/slides/${slide.id}/product-data`), 404, 'NOT_FOUND');
  });
});

describe('DELETE /api/slides/{slideId}', () => {
  it('deletes the slide and closes the gap in orderIndex', async () => {
    const slides = [];
    for (const title of ['a', 'b', 'c', 'd']) slides.push(await addSlide({ title }));
    const response = await user.delete(`/api/slides/${slides[1].id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(await order()).toEqual(['a@0', 'c@1', 'd@2']);
    expectProblem(await user.delete(`/api/slides/${slides[1].id}`), 404, 'NOT_FOUND');
    expect(await eventTypes(slides[1].id)).toEqual(['slide.created', 'slide.deleted']);
  });

  it('its events carry the slide as every route answers it: the SQL-built and the entity-built answers agree', async () => {
    const created = await addSlide({
      title: 'a',
      bullets: ['x'],
      slideType: 'product_pricing_v1',
      productData,
    });
    const updated = (await user.patch(`/api/slides/${created.id}`, { slideContext: 'why' })).body;
    const [listed] = await slidesOf();
    expect(listed).toEqual(updated);
    expect((await user.delete(`/api/slides/${created.id}`)).status).toBe(200);
    const payloads = await t.app.database.orm.em
      .fork()
      .getConnection()
      .execute<{ payload: unknown }[]>(
        'select payload from event where aggregate_id = ? order by occurred_at, id',
        [created.id],
      );
    // Every event adds its actor to the payload.
    const actor = expect.any(Object);
    expect(payloads.map((row) => row.payload)).toEqual([
      { ...created, actor },
      { ...updated, actor },
      { ...listed, actor },
    ]);
  });
});

describe('GET /api/decks/{deckId}/slides', () => {
  it('lists each slide exactly as its own answers give it, timestamps written by SQL included', async () => {
    const a = await addSlide({ title: 'a', bullets: ['x'] });
    const b = await addSlide({
      title: 'b',
      slideType: 'product_pricing_v1',
      productData,
    });
    // The reorder writes updated_at with now() (microseconds); the list must still say what
    // an entity-backed answer says (milliseconds, UTC, Z).
    await user.put(`/api/decks/${deckId}/slides/reorder`, { slideIds: [b.id, a.id] });
    const unchanged = async (slide: { id: string; title: string }) => {
      const response = await user.patch(`/api/slides/${slide.id}`, { title: slide.title });
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const listed = await slidesOf();
    expect(listed).toEqual([await unchanged(b), await unchanged(a)]);
    expect(listed[1].updatedAt).not.toBe(a.updatedAt);
    expect(listed[1].updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers an empty deck with no slides, and another organization’s deck as missing', async () => {
    expect(await slidesOf()).toEqual([]);
    const stranger = await t.signedInClient();
    expectProblem(await stranger.get(`/api/decks/${deckId}/slides`), 404, 'NOT_FOUND');
    expectProblem(await user.get(`/api/decks/${randomUUID()}/slides`), 404, 'NOT_FOUND');
  });
});

describe('PUT /api/decks/{deckId}/slides/reorder', () => {
  it('gives each slide its position in the array and writes deck.slides_reordered', async () => {
    const slides = [];
    for (const title of ['a', 'b', 'c', 'd']) slides.push(await addSlide({ title }));
    const newOrder = [slides[3], slides[0], slides[2], slides[1]].map((s) => s.id);
    const response = await user.put(`/api/decks/${deckId}/slides/reorder`, { slideIds: newOrder });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(await order()).toEqual(['d@0', 'a@1', 'c@2', 'b@3']);
    expect(await eventTypes(deckId)).toContain('deck.slides_reordered');
  });

  it('names the missing, unknown and repeated ids, and changes nothing', async () => {
    const [a, b, c] = [
      await addSlide({ title: 'a' }),
      await addSlide({ title: 'b' }),
      await addSlide({ title: 'c' }),
    ];
    const unknown = randomUUID();
    const response = await user.put(`/api/decks/${deckId}/slides/reorder`, {
      slideIds: [b.id, unknown, b.id],
    });
    const problem = expectProblem(response, 400, 'BAD_REQUEST');
    expect(problem.issues).toEqual(
      expect.arrayContaining([
        { path: ['slideIds', 1], message: expect.stringContaining(`${unknown} is not a slide of this deck`) },
        { path: ['slideIds', 2], message: expect.stringContaining(`${b.id} is listed more than once`) },
        { path: ['slideIds'], message: expect.stringContaining(`${a.id} of this deck is missing`) },
        { path: ['slideIds'], message: expect.stringContaining(`${c.id} of this deck is missing`) },
      ]),
    );
    expect(await order()).toEqual(['a@0', 'b@1', 'c@2']);
  });

  it('refuses a slide of another deck, even one of the caller’s own', async () => {
    const a = await addSlide({ title: 'a' });
    const otherDeck = (await user.post('/api/decks', { name: 'other' })).body.id;
    const elsewhere = await addSlide({ title: 'x' }, otherDeck);
    const response = await user.put(`/api/decks/${deckId}/slides/reorder`, {
      slideIds: [a.id, elsewhere.id],
    });
    expect(expectProblem(response, 400, 'BAD_REQUEST').issues).toEqual([
      { path: ['slideIds', 1], message: expect.stringContaining('not a slide of this deck') },
    ]);
    expect(await order(otherDeck)).toEqual(['x@0']);
  });

  it('rejects slideIds that are not a list of uuids', async () => {
    for (const slideIds of ['a,b', [1, 2], ['not-a-uuid'], undefined]) {
      expectProblem(await user.put(`/api/decks/${deckId}/slides/reorder`, { slideIds }), 400, 'BAD_REQUEST');
    }
  });
});

describe('product data', () => {
  it('replaces the tiers with PUT and writes slide.product_data_updated', async () => {
    const slide = await addSlide({ slideType: 'product_pricing_v1' });
    expectProblem(await user.get(`/api/slides/${slide.id}/product-data`), 404, 'NOT_FOUND');
    const next = { ...productData, best: tier('Enterprise', 999) };
    const response = await user.put(`/api/slides/${slide.id}/product-data`, { productData: next });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ productData: next });
    expect((await user.get(`/api/slides/${slide.id}/product-data`)).body).toEqual({ productData: next });
    expect(await eventTypes(slide.id)).toEqual(['slide.created', 'slide.product_data_updated']);
  });

  it('defaults defaultSelectedTier to good', async () => {
    const { defaultSelectedTier: _omit, ...withoutDefault } = productData;
    const slide = await addSlide({ slideType: 'product_pricing_v1', productData: withoutDefault });
    expect(slide.productData.defaultSelectedTier).toBe('good');
  });

  it('answers a standard slide with 404 and a clear detail, for GET and PUT', async () => {
    const slide = await addSlide({});
    const read = expectProblem(await user.get(`/api/slides/${slide.id}/product-data`), 404, 'NOT_FOUND');
    expect(read.detail).toContain('standard slide');
    expect(read.detail.indexOf('product_pricing_v1')).toBeGreaterThan(read.detail.indexOf('standard slide'));
    expectProblem(await user.put(`/api/slides/${slide.id}/product-data`, { productData }), 404, 'NOT_FOUND');
  });

  it.each([
    ['a missing tier', { ...productData, best: undefined }, 'productData.best'],
    [
      'an unknown currency',
      { ...productData, good: { ...tier('x', 1), currency: 'XYZ' } },
      'productData.good.currency',
    ],
    [
      'a lower-case currency',
      { ...productData, good: { ...tier('x', 1), currency: 'usd' } },
      'productData.good.currency',
    ],
    ['a negative price', { ...productData, good: tier('x', -1) }, 'productData.good.price'],
    ['a price with three decimals', { ...productData, good: tier('x', 1.005) }, 'productData.good.price'],
    [
      'an unknown billing period',
      { ...productData, better: { ...tier('x', 1), billingPeriod: 'week' } },
      'productData.better.billingPeriod',
    ],
    [
      'an unknown default tier',
      { ...productData, defaultSelectedTier: 'premium' },
      'productData.defaultSelectedTier',
    ],
  ])('rejects %s with 400, changing nothing', async (_label, body, field) => {
    const slide = await addSlide({ slideType: 'product_pricing_v1', productData });
    const problem = expectProblem(
      await user.put(`/api/slides/${slide.id}/product-data`, { productData: body }),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get(`/api/slides/${slide.id}/product-data`)).body).toEqual({ productData });
  });
});
