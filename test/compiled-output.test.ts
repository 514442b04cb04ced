import { randomUUID } from 'node:crypto';
import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { storedEventOutput } from '../domain/events/event-output.ts';
import { slideOutput } from '../domain/slides/slide-output.ts';
import { compiledOutput } from '../routers/compiled-output.ts';

const slides = z.object({ slides: z.array(slideOutput) });
const events = z.object({ events: z.array(storedEventOutput) });
const checkedSlides = compiledOutput(slides);
const checkedEvents = compiledOutput(events);

const tier = (price: number) => ({
  name: 'Pro',
  price,
  currency: 'USD',
  billingPeriod: 'month',
  features: ['Support'],
});

function slide(changes: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    deckId: randomUUID(),
    slideId: 'slide-1',
    title: 'Pricing',
    narrationScript: null,
    bullets: ['a', 'b'],
    slideContext: null,
    audioUrl: null,
    heroImg: null,
    orderIndex: 0,
    slideType: 'product_pricing_v1',
    productData: { good: tier(19.99), better: tier(0.07), best: tier(1e12), defaultSelectedTier: 'best' },
    createdAt: '2026-11-23T10:00:00.123Z',
    updatedAt: '2026-11-23T10:00:00.000Z',
    ...changes,
  };
}

/** zod's verdict on a value: its output, or that it fails. */
function byZod(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(structuredClone(value));
  return result.success ? result.data : 'fails';
}

function byCompiled(schema: z.ZodType, value: unknown): unknown {
  try {
    return schema.parse(structuredClone(value));
  } catch {
    return 'fails';
  }
}

describe('compiledOutput', () => {
  it.each([
    ['a valid slide', slide()],
    ['a standard slide without product data', slide({ slideType: 'standard', productData: null })],
    ['an undocumented field, removed', slide({ organizationId: randomUUID() })],
    [
      'a product data without its default tier, filled in',
      slide({ productData: { good: tier(1), better: tier(2), best: tier(3) } }),
    ],
    ['a price with three decimals', slide({ productData: { ...slide().productData, good: tier(19.991) } })],
    ['a negative order', slide({ orderIndex: -1 })],
    ['a fractional order', slide({ orderIndex: 1.5 })],
    ['a deck id that is no uuid', slide({ deckId: 'deck-1' })],
    ['a timestamp without its zone', slide({ createdAt: '2026-11-23T10:00:00' })],
    ['an impossible date', slide({ createdAt: '2026-02-30T10:00:00.000Z' })],
    ['an unknown slide type', slide({ slideType: 'video' })],
    ['a missing field', (({ title: _title, ...rest }) => rest)(slide())],
    ['a null where none may be', slide({ bullets: null })],
    ['a bullet that is no text', slide({ bullets: [1] })],
  ])('agrees with zod on %s', (_name, value) => {
    const answer = { slides: [value] };
    expect(byCompiled(checkedSlides, answer)).toEqual(byZod(slides, answer));
  });

  it.each([
    ['a valid event', { payload: { nested: { deep: [1, 'two'] } } }],
    ['an undocumented field, removed', { secret: 'x' }],
    ['a payload that is no object', { payload: 'text' }],
    ['a payload that is an array', { payload: [1] }],
    ['a payload of null', { payload: null }],
    ['an id that is no uuid', { id: '42' }],
  ])('agrees with zod on an event: %s', (_name, changes) => {
    const event = {
      id: randomUUID(),
      eventType: 'slide.created',
      aggregateType: 'slide',
      aggregateId: randomUUID(),
      occurredAt: '2026-11-23T10:00:00.000Z',
      payload: { title: 'Intro' },
      ...changes,
    };
    const answer = { events: [event] };
    expect(byCompiled(checkedEvents, answer)).toEqual(byZod(events, answer));
  });

  it('removes an undocumented field inside a strict object, where zod would fail the answer', () => {
    const value = slide();
    const answer = { slides: [{ ...value, productData: { ...value.productData, internal: 1 } }] };
    expect(byZod(slides, answer)).toBe('fails');
    expect(byCompiled(checkedSlides, answer)).toEqual(byZod(slides, { slides: [value] }));
  });

  it('is the check tRPC runs on a procedure’s answer: extra fields removed, a wrong answer a 500', async () => {
    const t = initTRPC.create();
    // A strict object: zod's own check would fail an extra field; the compiled one removes it.
    const output = compiledOutput(z.strictObject({ n: z.int() }));
    const router = t.router({
      extra: t.procedure.output(output).query(() => ({ n: 1, secret: 'x' })),
      wrong: t.procedure.output(output).query(() => ({ n: 'one' }) as unknown as { n: number }),
    });
    const caller = t.createCallerFactory(router)({});
    expect(await caller.extra()).toEqual({ n: 1 });
    await expect(caller.wrong()).rejects.toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Output validation failed',
    });
  });

  it('holds the answer to `checkedAs` when given, while readers see the schema itself (the event log)', () => {
    const documented = z.object({ n: z.literal(1) });
    const output = compiledOutput(documented, { checkedAs: z.object({ n: z.int() }) });
    expect(output.parse({ n: 2 })).toEqual({ n: 2 });
    expect(() => output.parse({ n: 'two' })).toThrow();
    expect(z.toJSONSchema(output)).toEqual(z.toJSONSchema(documented));
  });

  it('keeps what every reader of the zod schema sees: its JSON Schema', () => {
    expect(z.toJSONSchema(checkedSlides, { io: 'output' })).toEqual(z.toJSONSchema(slides, { io: 'output' }));
  });

  it('refuses, at build time, what it would check differently from zod', () => {
    expect(() => compiledOutput(z.object({ site: z.url() }))).toThrow(/format uri without a pattern/);
    expect(() => compiledOutput(z.object({ n: z.string().transform(Number) }))).toThrow();
    expect(() => compiledOutput(z.object({ code: z.string().regex(/^[a-z]+$/i) }))).toThrow(/has flags/);
    const a = z.object({ kind: z.literal('a') });
    const b = z.object({ kind: z.literal('b'), note: z.string().optional() });
    expect(() => compiledOutput(z.object({ item: z.union([a, b]) }))).toThrow(/more than one branch/);
    expect(() => compiledOutput(z.object({ item: z.discriminatedUnion('kind', [a, b]) }))).toThrow(
      /more than one branch/,
    );
    // A nullable object is one branch besides null: allowed (product data is one).
    expect(() => compiledOutput(z.object({ item: a.nullable() }))).not.toThrow();
  });
});
