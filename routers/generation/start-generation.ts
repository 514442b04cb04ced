import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { badRequest, conflict } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { DeckIntro } from '../../entities/DeckIntro.ts';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import { newId } from '../../entities/ids.ts';
import { Slide } from '../../entities/Slide.ts';
import { authedProcedure } from '../trpc.ts';
import { jobOutput, toJobOutput } from './job.schema.ts';

/**
 * Queues a narration job (202): a worker speaks every slide's script, then the intro's.
 * One pending or processing job per deck: another start is a 409 (a unique index decides,
 * so two concurrent starts cannot both win).
 */
export const startGeneration = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/generate',
      tags: ['generation'],
      summary: 'Start narrating the deck (speaks every slide’s script and the intro)',
      errorResponses: [409],
    },
    successStatus: 202,
  })
  .input(z.strictObject({ deckId: z.uuid() }))
  .output(jobOutput)
  .mutation(async ({ ctx, input }) => {
    // Locked: a deck deleted meanwhile is a 404, not a foreign-key violation.
    return ctx.em.transactional(async (em) => {
      const deck = await findDeck(em, ctx.auth, input.deckId, { lock: true });
      const totalSlides = await em.count(Slide, { deck, narrationScript: { $ne: null, $re: '\\S' } });
      const intro = await em.findOne(DeckIntro, { deck });
      if (totalSlides === 0 && !intro) {
        throw badRequest(
          'The deck has nothing to narrate: no slide has a narrationScript and there is no intro',
        );
      }
      const now = new Date();
      const job = em.create(GenerationJob, {
        id: newId(),
        deck,
        status: 'pending',
        currentSlide: 0,
        totalSlides,
        error: null,
        lockedUntil: null,
        startedAt: null,
        completedAt: null,
        createdAt: now,
        updatedAt: now,
      });
      const output = toJobOutput(job);
      recordEvent(em, { organizationId: ctx.auth.organizationId }, 'generation_job.started', {
        aggregateId: job.id,
        deckId: deck.id,
        payload: output,
      });
      try {
        await em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw conflict(`Deck ${deck.id} already has a generation job pending or in progress`);
        }
        throw error;
      }
      return output;
    });
  });
