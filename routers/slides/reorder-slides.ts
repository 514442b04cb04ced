import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { badRequest, type Issue } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const reorderSlidesInput = z.strictObject({
  deckId: z.uuid(),
  slideIds: z
    .array(z.uuid())
    .max(10_000)
    .meta({ description: 'Every slide of the deck (uuids), each once, in the new order' }),
});

/** Issues for a submitted order that is not exactly the deck's slides, each once. */
export function orderIssues(submitted: string[], existing: Set<string>): Issue[] {
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

export const reorderSlides = authedProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/decks/{deckId}/slides/reorder',
      tags: ['slides'],
      summary: 'Put the deck’s slides in a new order',
    },
  })
  .input(reorderSlidesInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) =>
    ctx.em.transactional(async (em) => {
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const rows = await em.execute<{ id: string }[]>('select id from slide where deck_id = ?', [deck.id]);
      const issues = orderIssues(input.slideIds, new Set(rows.map((r) => r.id)));
      if (issues.length > 0) {
        throw badRequest('slideIds must list every slide of the deck exactly once', issues);
      }
      // One statement for the whole deck; the (deck, orderIndex) unique constraint is deferred to commit.
      await em.execute(
        `update slide set order_index = v.position - 1, updated_at = now()
           from unnest(cast(? as uuid[])) with ordinality as v(id, position)
          where slide.id = v.id and slide.deck_id = ? and slide.order_index <> v.position - 1`,
        // A PostgreSQL array literal: the ids are validated UUIDs, so nothing needs quoting.
        [`{${input.slideIds.join(',')}}`, deck.id],
      );
      recordEvent(em, ctx.auth, 'deck.slides_reordered', {
        aggregateId: deck.id,
        deckId: deck.id,
        payload: { slideIds: input.slideIds },
      });
      await em.flush();
      return { success: true as const };
    }),
  );
