import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../entities/ids.ts';
import { Slide, type SlideType } from '../../entities/Slide.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { lockDeck } from '../decks/find-deck.ts';
import { badRequest, conflict, type Issue, missing, notFound } from '../errors.ts';
import { recordEvent } from '../events/events.ts';
import { changeOne } from '../mutation.ts';
import { checkOwnObjectKeys, downloadUrlFor } from '../object-keys.ts';
import { readRows } from '../prepared-statements.ts';
import { findSlide, lockDeckOfSlide } from './find-slide.ts';
import type { ProductData } from './product-data.ts';
import { type SlideOutput, slideOutputColumns, toSlideOutput } from './slide-output.ts';

/**
 * The fields a create may set and a PATCH may change (`undefined`: not given): every property of
 * a slide but its identity, place, type and product data (each with rules of its own) and timestamps.
 */
export type SlideChanges = Partial<
  Omit<
    Slide,
    'id' | 'deck' | 'slideId' | 'orderIndex' | 'slideType' | 'productData' | 'createdAt' | 'updatedAt'
  >
>;

export async function createSlide(
  { em, services, auth }: DomainContext,
  input: SlideChanges & {
    deckId: string;
    slideId?: string;
    orderIndex?: number;
    slideType: SlideType;
    productData?: ProductData;
  },
): Promise<SlideOutput> {
  if (input.productData && input.slideType !== 'product_pricing_v1') {
    throw badRequest('productData belongs to product_pricing_v1 slides only', [
      { path: ['productData'], message: 'only allowed when slideType is product_pricing_v1' },
    ]);
  }
  await checkOwnObjectKeys(auth, services.storage, { audioUrl: input.audioUrl, heroImg: input.heroImg });

  return em.transactional(async (em) => {
    // The deck's row lock serialises concurrent creates: each sees the count the last one left.
    const deckId = await lockDeck(em, auth, input.deckId);
    const { count, highest, taken } = await slideNumbers(em, deckId, input.slideId ?? null);
    const orderIndex = input.orderIndex ?? count;
    if (orderIndex > count) {
      throw badRequest(`orderIndex must be between 0 and ${count} (the deck has ${count} slides)`, [
        { path: ['orderIndex'], message: `must be at most ${count}` },
      ]);
    }
    const slideId = input.slideId ?? `slide-${highest + 1}`;
    if (taken) throw conflict(`The deck already has a slide ${slideId}`);
    if (orderIndex < count) {
      await em.execute(
        'update slide set order_index = order_index + 1 where deck_id = ? and order_index >= ?',
        [deckId, orderIndex],
      );
    }
    // The input's fields under the entity's names (its `deckId` is no property, so no column).
    const output = await insertSlide(em, {
      ...input,
      id: newId(),
      deck: deckId,
      slideId,
      bullets: input.bullets ?? [],
      orderIndex,
    });
    recordEvent(em, auth, 'slide.created', { aggregateId: output.id, deckId, payload: output });
    await em.flush();
    return output;
  });
}

/**
 * Under the deck's lock, in one statement: how many slides the deck has, the highest n among its
 * `slide-<n>` ids (a new slide without an id gets slide-<n+1>), and whether `slideId` is taken.
 */
async function slideNumbers(
  em: EntityManager,
  deckId: string,
  slideId: string | null,
): Promise<{ count: number; highest: number; taken: boolean }> {
  const [row] = await em.execute<{ count: number; highest: string | null; taken: boolean }[]>(
    `select count(*)::int as count,
            max(substring(slide_id from 7)::bigint) filter (where slide_id ~ '^slide-[0-9]+$') as highest,
            coalesce(bool_or(slide_id = ?), false) as taken
       from slide where deck_id = ?`,
    [slideId, deckId],
  );
  return { count: row!.count, highest: Number(row!.highest ?? 0), taken: row!.taken };
}

/**
 * Inserts a new slide and answers it from a RETURNING of the answer's columns. The columns are the
 * properties given (names from the entity's metadata); the rest take the database's defaults:
 * null, and the transaction's time for `created_at` and `updated_at`. Like delete, it builds no
 * entity (the unit of work still writes the event): kept raw for `npm run bench:http`'s
 * POST + DELETE slide figure.
 */
async function insertSlide(
  em: EntityManager,
  values: { [K in keyof Slide]?: K extends 'deck' ? string : Slide[K] },
): Promise<SlideOutput> {
  const platform = em.getPlatform();
  const given = em
    .getMetadata()
    .get(Slide)
    .props.filter((property) => values[property.name] !== undefined);
  const [output] = await em.execute<SlideOutput[]>(
    `insert into slide as s (${given.map((property) => property.fieldNames[0]).join(', ')})
     values (${given.map(() => '?').join(', ')})
     returning ${slideOutputColumns(em)}`,
    given.map((property) => {
      const value = values[property.name];
      // JSON fields go as their JSON text (pg would send an array as a PostgreSQL array).
      return property.customType ? property.customType.convertToDatabaseValue(value, platform) : value;
    }),
  );
  return output!;
}

/**
 * The deck and its slides in one prepared statement, the rows already in the answer's shape (a
 * hot read: no entities are built; kept raw for `npm run bench:http`'s GET slides figure). A deck
 * of another organization gives no row, like a missing one; an empty deck gives one row without
 * a slide.
 */
const listSlidesSql = (em: EntityManager) => `
  select ${slideOutputColumns(em)}
    from deck d left join slide s on s.deck_id = d.id
   where d.id = $1 and d.organization_id = $2
   order by s.order_index`;

export async function listSlides(
  { em, auth }: DomainContext,
  deckId: string,
): Promise<{ slides: SlideOutput[] }> {
  const rows = await readRows<SlideOutput>(em, listSlidesSql(em), [deckId, auth.organizationId]);
  if (rows.length === 0) throw notFound('Deck', deckId);
  return { slides: rows[0]!.id === null ? [] : rows };
}

/**
 * Any slide field but `orderIndex` (use reorder) and the human `slideId` (fixed at creation).
 * Switching a pricing slide to `standard` drops its product data.
 */
export async function updateSlide(
  { em, services, auth }: DomainContext,
  input: SlideChanges & { slideId: string; slideType?: SlideType },
): Promise<SlideOutput> {
  const { slideId, ...changes } = input;
  if (Object.keys(changes).length === 0) throw badRequest('Send at least one field to change');
  await checkOwnObjectKeys(auth, services.storage, { audioUrl: changes.audioUrl, heroImg: changes.heroImg });
  // Locked: a concurrent delete makes this a 404 instead of an event for a deleted slide.
  return changeOne(em, auth, {
    find: (em) => findSlide(em, auth, slideId, { lock: true }),
    change: (slide) =>
      applyChanges(slide, { ...changes, productData: changes.slideType === 'standard' ? null : undefined }),
    answer: toSlideOutput,
    event: (slide, output) => ({
      type: 'slide.updated',
      aggregateId: slide.id,
      deckId: output.deckId,
      payload: output,
    }),
  });
}

/** The slides after it move up. */
export async function deleteSlide({ em, auth }: DomainContext, slideId: string): Promise<{ success: true }> {
  return em.transactional(async (em) => {
    await lockDeckOfSlide(em, auth, slideId);
    // Under the lock: a concurrent reorder may have moved it, or a concurrent delete removed it.
    const [slide] = await em.execute<SlideOutput[]>(
      `delete from slide s where s.id = ? returning ${slideOutputColumns(em)}`,
      [slideId],
    );
    if (!slide) throw notFound('Slide', slideId);
    await em.execute('update slide set order_index = order_index - 1 where deck_id = ? and order_index > ?', [
      slide.deckId,
      slide.orderIndex,
    ]);
    recordEvent(em, auth, 'slide.deleted', { aggregateId: slide.id, deckId: slide.deckId, payload: slide });
    await em.flush();
    return { success: true as const };
  });
}

/** Issues for a submitted order that is not exactly the deck's slides, each once. */
function orderIssues(submitted: string[], existing: Set<string>): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  submitted.forEach((id, index) => {
    if (seen.has(id))
      issues.push({ path: ['slideIds', index], message: `slide ${id} is listed more than once` });
    else if (!existing.has(id))
      issues.push({ path: ['slideIds', index], message: `slide ${id} is not a slide of this deck` });
    seen.add(id);
  });
  for (const id of existing) {
    if (!seen.has(id)) issues.push({ path: ['slideIds'], message: `slide ${id} of this deck is missing` });
  }
  return issues;
}

/**
 * One statement checks and applies a new order. The check is one pass over the deck's slides,
 * each matched with the submitted ids: every slide matched, as many rows as ids (no stranger)
 * and as many slides as ids (no repeat) means the ids are exactly the deck's slides, each once.
 * Only then are the slides whose position changes moved; nothing is loaded into the unit of work.
 */
const REORDER = `
  with wanted as (
    select v.id, v.position - 1 as ord from unnest(cast(? as uuid[])) with ordinality as v(id, position)
  ), checked as (
    select count(w.id) = count(*) and count(*) = (select count(*) from wanted)
           and count(distinct s.id) = (select count(*) from wanted) as ok
      from slide s left join wanted w on w.id = s.id
     where s.deck_id = ?
  ), moved as (
    update slide set order_index = w.ord, updated_at = now()
      from wanted w, checked
     where checked.ok and slide.id = w.id and slide.deck_id = ? and slide.order_index <> w.ord
  )
  select ok from checked`;

/** `slideIds`: every slide of the deck (uuids), each once, in the new order. */
export async function reorderSlides(
  { em, auth }: DomainContext,
  input: { deckId: string; slideIds: string[] },
): Promise<{ success: true }> {
  return em.transactional(async (em) => {
    // The deck's lock comes first, in a statement of its own: the check below then sees every
    // slide committed by whoever held it before (a statement's snapshot is taken when it starts).
    const deckId = await lockDeck(em, auth, input.deckId);
    // A PostgreSQL array literal: the ids are validated UUIDs, so nothing needs quoting.
    const ids = `{${input.slideIds.join(',')}}`;
    const [result] = await em.execute<{ ok: boolean }[]>(REORDER, [ids, deckId, deckId]);
    if (!result?.ok) {
      // Refused (nothing was moved): say exactly what is wrong, which only a refusal pays for.
      const rows = await em.execute<{ id: string }[]>('select id from slide where deck_id = ?', [deckId]);
      const issues = orderIssues(input.slideIds, new Set(rows.map((row) => row.id)));
      throw badRequest('slideIds must list every slide of the deck exactly once', issues);
    }
    recordEvent(em, auth, 'deck.slides_reordered', {
      aggregateId: deckId,
      deckId,
      payload: { slideIds: input.slideIds },
    });
    await em.flush();
    return { success: true as const };
  });
}

/** The slide, if it is a pricing slide; a standard slide has no product data to speak of. */
function requirePricingSlide<S extends { id: string; slideType: SlideType }>(slide: S): S {
  if (slide.slideType !== 'product_pricing_v1') {
    throw missing(`Slide ${slide.id} is a standard slide; product data belongs to product_pricing_v1 slides`);
  }
  return slide;
}

const GET_PRODUCT_DATA = `
  select s.id, s.slide_type as "slideType", s.product_data as "productData"
    from slide s join deck d on d.id = s.deck_id
   where s.id = $1 and d.organization_id = $2`;

export async function getProductData(
  { em, auth }: DomainContext,
  slideId: string,
): Promise<{ productData: ProductData }> {
  const [row] = await readRows<Pick<SlideOutput, 'id' | 'slideType' | 'productData'>>(em, GET_PRODUCT_DATA, [
    slideId,
    auth.organizationId,
  ]);
  if (!row) throw notFound('Slide', slideId);
  const slide = requirePricingSlide(row);
  if (!slide.productData) throw missing(`Slide ${slide.id} has no product data yet`);
  return { productData: slide.productData };
}

/** Sets (replaces) the tiers; the event is written even when they are the same as before. */
export async function putProductData(
  { em, auth }: DomainContext,
  input: { slideId: string; productData: ProductData },
): Promise<{ productData: ProductData }> {
  // Locked: a concurrent delete makes this a 404 instead of an event for a deleted slide.
  await changeOne(em, auth, {
    find: async (em) => requirePricingSlide(await findSlide(em, auth, input.slideId, { lock: true })),
    change: (slide) => {
      slide.productData = input.productData;
      return 'always';
    },
    answer: toSlideOutput,
    event: (slide, output) => ({
      type: 'slide.product_data_updated',
      aggregateId: slide.id,
      deckId: output.deckId,
      payload: output,
    }),
  });
  return { productData: input.productData };
}

/** A playable address for a slide's audio (its `audioUrl` field is an object key). */
export async function getSlideAudio(
  { em, services, auth }: DomainContext,
  slideId: string,
): Promise<{ url: string; expiresIn: number }> {
  const slide = await findSlide(em, auth, slideId);
  if (!slide.audioUrl) throw missing(`Slide ${slide.id} has no audio yet`);
  return {
    url: (await downloadUrlFor(services, slide.audioUrl))!,
    expiresIn: services.settings.storage.downloadUrlExpiresSeconds,
  };
}
