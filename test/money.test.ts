import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { contractDocument, schemaErrors } from './helpers/openapi-contract.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Issue 24, finding 2: a tier's price is a JSON number with at most two decimals, checked by
 * the service exactly; the document states no `multipleOf`, which standard validators compute
 * in floating point (they refused 19.99). docs/decisions/047-money.md.
 */

let t: TestApp;
let user: HttpClient;
let slideId: string;

const tier = (price: number) => ({
  name: 'Pro',
  price,
  currency: 'USD',
  billingPeriod: 'month',
  features: [],
});
const pricing = (good: number, better = 1, best = 2) => ({
  good: tier(good),
  better: tier(better),
  best: tier(best),
});

beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient();
  const deck = (await user.post('/api/decks', { name: 'Money' })).body;
  const slide = await user.post(`/api/decks/${deck.id}/slides`, {
    title: 'Pricing',
    slideType: 'product_pricing_v1',
    productData: pricing(19.99, 0.01, 1e12),
  });
  expect(slide.status).toBe(201);
  slideId = slide.body.id;
});
afterAll(() => t.close());

describe('a pricing tier’s price', () => {
  it('takes 19.99, 0.01 and 1e12, and answers them as sent', async () => {
    const answer = await user.get(`/api/slides/${slideId}/product-data`);
    expect(answer.status).toBe(200);
    expect([answer.body.productData.good.price, answer.body.productData.better.price]).toEqual([19.99, 0.01]);
    expect(answer.body.productData.best.price).toBe(1e12);
  });

  it('is refused with more than two decimals (19.999, 0.005, 1e-7), changing nothing', async () => {
    for (const price of [19.999, 0.005, 1e-7]) {
      const problem = expectProblem(
        await user.put(`/api/slides/${slideId}/product-data`, { productData: pricing(price) }),
        400,
        'BAD_REQUEST',
      );
      expect(problem.issues).toEqual([
        { path: ['productData', 'good', 'price'], message: 'must have at most two decimals' },
      ]);
    }
    const answer = await user.get(`/api/slides/${slideId}/product-data`);
    expect(answer.body.productData.good.price).toBe(19.99);
  });

  it('in an answer carrying 19.99 validates with Ajv against the document', async () => {
    const answer = await user.get(`/api/slides/${slideId}/product-data`);
    const document = contractDocument();
    const schema =
      document.paths['/slides/{slideId}/product-data'].get.responses['200'].content['application/json']
        .schema;
    expect(schemaErrors('money: product data', schema, answer.body)).toBeUndefined();
    expect(JSON.stringify(document)).not.toContain('multipleOf');
    const price = document.components.schemas.PricingTier.properties.price;
    expect(price.description).toMatch(/at most two decimals/i);
  });
});
