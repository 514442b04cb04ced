import { createTRPCClient, httpLink } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../routers/app-router.ts';
import * as fixtures from './helpers/fixtures.ts';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string };

beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient('Scenario Org');
});
afterAll(() => t.close());

describe('a REST caller builds a whole deck', () => {
  it('branding, ten slides with a pricing slide, reorder, delete one, publish a config, save and delete an intro', async () => {
    const deck = (await user.post('/api/decks', { name: 'Enterprise pitch' })).body;
    expect((await user.put(`/api/decks/${deck.id}/branding`, fixtures.branding)).status).toBe(200);

    const slides = [];
    for (let i = 1; i <= 9; i++) {
      const response = await user.post(`/api/decks/${deck.id}/slides`, {
        title: `Slide ${i}`,
        narrationScript: `This is slide ${i}.`,
        bullets: [`point ${i}`],
      });
      expect(response.status).toBe(201);
      slides.push(response.body);
    }
    const pricing = await user.post(`/api/decks/${deck.id}/slides`, {
      title: 'Pricing',
      slideType: 'product_pricing_v1',
      productData: fixtures.productData,
      orderIndex: 4,
    });
    expect(pricing.status).toBe(201);
    expect(pricing.body.orderIndex).toBe(4);
    slides.splice(4, 0, pricing.body);

    let listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.map((s: { id: string }) => s.id)).toEqual(slides.map((s) => s.id));

    const reversed = [...slides].reverse().map((s) => s.id);
    expect((await user.put(`/api/decks/${deck.id}/slides/reorder`, { slideIds: reversed })).body).toEqual({
      success: true,
    });
    listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.map((s: { id: string }) => s.id)).toEqual(reversed);
    expect(listed.map((s: { orderIndex: number }) => s.orderIndex)).toEqual([...Array(10).keys()]);

    expect((await user.delete(`/api/slides/${reversed[0]}`)).body).toEqual({ success: true });
    listed = (await user.get(`/api/decks/${deck.id}/slides`)).body.slides;
    expect(listed.map((s: { id: string }) => s.id)).toEqual(reversed.slice(1));
    expect(listed.map((s: { orderIndex: number }) => s.orderIndex)).toEqual([...Array(9).keys()]);

    expect((await user.get(`/api/slides/${pricing.body.id}/product-data`)).body).toEqual({
      productData: fixtures.productData,
    });

    const config = (await user.post(`/api/decks/${deck.id}/action-configs`, fixtures.actionConfig)).body;
    const published = (await user.patch(`/api/action-configs/${config.id}`, { status: 'published' })).body;
    expect(published.status).toBe('published');

    expect((await user.put(`/api/decks/${deck.id}/intro`, fixtures.intro)).status).toBe(200);
    expect((await user.delete(`/api/decks/${deck.id}/intro`)).body).toEqual({ success: true });

    // Deleting the deck takes its content with it; its events stay in the log.
    expect((await user.delete(`/api/decks/${deck.id}`)).status).toBe(200);
    const [left] = await t.app.database.orm.em.getConnection().execute(
      `select (select count(*)::int from slide where deck_id = ?) as slides,
              (select count(*)::int from action_config where deck_id = ?) as configs,
              (select count(*)::int from deck_branding where deck_id = ?) as branding,
              (select count(*)::int from event where deck_id = ?) as events`,
      [deck.id, deck.id, deck.id, deck.id],
    );
    expect(left).toMatchObject({ slides: 0, configs: 0, branding: 0 });
    expect(left!.events).toBeGreaterThan(15);
  });
});

describe('the same procedures through @trpc/client', () => {
  it('create, reorder and read slides with the session cookie', async () => {
    const trpc = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${t.url}/trpc`, headers: () => ({ cookie: user.cookieHeader }) })],
    });
    const deck = await trpc.decks.createDeck.mutate({ name: 'Typed deck' });
    const a = await trpc.slides.createSlide.mutate({ deckId: deck.id, title: 'a' });
    const b = await trpc.slides.createSlide.mutate({
      deckId: deck.id,
      title: 'b',
      slideType: 'product_pricing_v1',
      productData: fixtures.productData as never,
    });
    await trpc.slides.reorderSlides.mutate({ deckId: deck.id, slideIds: [b.id, a.id] });
    const { slides } = await trpc.slides.listSlides.query({ deckId: deck.id });
    expect(slides.map((s) => [s.title, s.orderIndex])).toEqual([
      ['b', 0],
      ['a', 1],
    ]);
    expect((await trpc.slides.getProductData.query({ slideId: b.id })).productData.good.name).toBe('Starter');
    await expect(
      trpc.slides.reorderSlides.mutate({ deckId: deck.id, slideIds: [a.id] }),
    ).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', issues: [{ path: ['slideIds'], message: expect.stringContaining(b.id) }] },
    });
    // REST sees what tRPC did.
    expect((await user.get(`/api/decks/${deck.id}/slides`)).body.slides).toEqual(slides);
  });
});
