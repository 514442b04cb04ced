import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../entities/ids.ts';
import { Slide, type SlideType } from '../../entities/Slide.ts';
import { applyChanges } from '../changes.ts';
import type { Auth, DomainContext } from '../context.ts';
import { lockDeck } from '../decks/find-deck.ts';
import { badRequest, conflict, type Issue, missing, notFound } from '../errors.ts';
import { eventFromRows, recordEvent } from '../events/events.ts';
import { changeOne } from '../mutation.ts';
import { checkOwnObjectKeys, downloadUrlFor } from '../object-keys.ts';
import { inOneTrip, readRows } from '../prepared-statements.ts';
import { findSlide } from './find-slide.ts';
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
  const { deckId, slideId, orderIndex, ...fields } = input;
  const [row] = await inOneTrip<CreatedRow>(em, [
    // The deck's row lock serialises concurrent creates: the next statement, whose snapshot is
    // taken after the lock, sees the slides the last one left.
    [LOCK_DECK, [deckId, auth.organizationId]],
    insertSlideSql(
      em,
      auth,
      { deckId, slideId: slideId ?? null, orderIndex: orderIndex ?? null },
      {
        ...fields,
        id: newId(),
        bullets: input.bullets ?? [],
      },
    ),
  ]);
  const { deckFound, count, taken, ...output } = row!;
  if (!deckFound) throw notFound('Deck', deckId);
  if (orderIndex !== undefined && orderIndex > count) {
    throw badRequest(`orderIndex must be between 0 and ${count} (the deck has ${count} slides)`, [
      { path: ['orderIndex'], message: `must be at most ${count}` },
    ]);
  }
  // Only a given id can be taken: a generated one is past the highest.
  if (taken) throw conflict(`The deck already has a slide ${slideId}`);
  return output as SlideOutput;
}

/** Locks the caller's deck (no row: another organization's, or none). */
const LOCK_DECK = 'select id from deck where id = ? and organization_id = ? for update';

/**
 * The slides from the new slide's place on move down. Left out when it is appended (no position
 * given): nothing would move, and an UPDATE, even of no row, runs the position check's trigger.
 */
const MOVE_DOWN = `moved as (
       update slide set order_index = slide.order_index + 1
         from place p where slide.deck_id = p.deck_id and slide.order_index >= p.order_index),`;

/** The create's one statement answers the slide (its fields null when nothing was written) and why not. */
type CreatedRow = { [K in keyof SlideOutput]: SlideOutput[K] | null } & {
  deckFound: boolean;
  count: number;
  taken: boolean;
};

/**
 * A slide's create as one statement, after the deck's lock: how many slides the deck has, the
 * highest n among its `slide-<n>` ids (a slide without an id gets slide-<n+1>) and whether the id
 * is taken; then, only when the deck is the caller's, the position is 0…count and the id free,
 * the slides from that position on move down (when a position is given), the slide is inserted (its answer read back by
 * RETURNING: the database's defaults and timestamps) and its `slide.created` event written. The
 * columns are the properties given (names and types from the entity's metadata); the rest take
 * the database's defaults. Builds no entity and uses no unit of work (`npm run bench:http`).
 */
function insertSlideSql(
  em: EntityManager,
  auth: Auth,
  place: { deckId: string; slideId: string | null; orderIndex: number | null },
  values: { [K in keyof Slide]?: Slide[K] },
): [string, unknown[]] {
  const platform = em.getPlatform();
  // Decided by the statement itself: the deck's stored id, the slide id and the position.
  const decided: Partial<Record<keyof Slide, string>> = {
    deck: 'p.deck_id',
    slideId: 'p.slide_id',
    orderIndex: 'p.order_index',
  };
  const given = em
    .getMetadata()
    .get(Slide)
    .props.filter((property) => decided[property.name] || values[property.name] !== undefined);
  const selected = given.map(
    // The column's type without its length or precision (`varchar(255)` → `varchar`).
    (property) => decided[property.name] ?? `?::${property.columnTypes[0]!.split('(')[0]}`,
  );
  const givenValues = given
    .filter((property) => !decided[property.name])
    .map((property) => {
      const value = values[property.name];
      // JSON fields go as their JSON text (a JavaScript array would be written as a list).
      return property.customType ? property.customType.convertToDatabaseValue(value, platform) : value;
    });
  const [event, eventValues] = eventFromRows(auth, 'slide.created', 'inserted');
  return [
    `with deck as (select id from deck where id = ? and organization_id = ?),
     numbers as (
       select count(*)::int as count,
              coalesce(max(substring(slide_id from 7)::bigint) filter (where slide_id ~ '^slide-[0-9]+$'), 0) as highest,
              coalesce(bool_or(slide_id = ?::text), false) as taken
         from slide where deck_id = (select id from deck)),
     place as (
       select d.id as deck_id, coalesce(?::text, 'slide-' || (n.highest + 1)) as slide_id,
              coalesce(?::int, n.count) as order_index
         from deck d, numbers n
        where coalesce(?::int, n.count) <= n.count and not n.taken),
     ${place.orderIndex === null ? '' : MOVE_DOWN}
     inserted as (
       insert into slide as s (${given.map((property) => property.fieldNames[0]).join(', ')})
       select ${selected.join(', ')} from place p
       returning ${slideOutputColumns(em)}),
     event as (${event})
     select exists (select 1 from deck) as "deckFound", n.count, n.taken, inserted.*
       from numbers n left join inserted on true`,
    [
      place.deckId,
      auth.organizationId,
      place.slideId,
      place.slideId,
      place.orderIndex,
      place.orderIndex,
      ...givenValues,
      ...eventValues,
    ],
  ];
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

/** One slide of the caller's organization: where a create's `Location` points. */
export async function getSlide({ em, auth }: DomainContext, slideId: string): Promise<SlideOutput> {
  return toSlideOutput(await findSlide(em, auth, slideId));
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

/**
 * The slides after it move up. One round trip: the deck's lock, then one statement that removes
 * the slide, moves the slides after it and writes its `slide.deleted` event (`npm run bench:http`).
 */
export async function deleteSlide({ em, auth }: DomainContext, slideId: string): Promise<{ success: true }> {
  const [event, eventValues] = eventFromRows(auth, 'slide.deleted', 'deleted');
  const [deleted] = await inOneTrip<SlideOutput>(em, [
    [
      `select d.id from slide s join deck d on d.id = s.deck_id
        where s.id = ? and d.organization_id = ? for update of d`,
      [slideId, auth.organizationId],
    ],
    // Under the lock, a snapshot of its own: a concurrent reorder may have moved the slide, or a
    // concurrent delete removed it.
    [
      `with deleted as (
         delete from slide s using deck d
          where s.id = ? and d.id = s.deck_id and d.organization_id = ?
         returning ${slideOutputColumns(em)}),
       moved as (
         update slide set order_index = slide.order_index - 1
           from deleted r where slide.deck_id = r."deckId" and slide.order_index > r."orderIndex"),
       event as (${event})
       select id from deleted`,
      [slideId, auth.organizationId, ...eventValues],
    ],
  ]);
  if (!deleted) throw notFound('Slide', slideId);
  return { success: true as const };
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
