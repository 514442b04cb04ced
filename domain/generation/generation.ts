import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DeckIntro } from '../../entities/DeckIntro.ts';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import { newId } from '../../entities/ids.ts';
import { Slide } from '../../entities/Slide.ts';
import type { DomainContext } from '../context.ts';
import { findDeck } from '../decks/find-deck.ts';
import { badRequest, conflict, missing } from '../errors.ts';
import { createOne } from '../mutation.ts';
import { type JobOutput, toJobOutput } from './job-output.ts';

/**
 * Queues a narration job: a worker (`narration.ts`) speaks every slide's script, then the
 * intro's. One pending or processing job per deck: another start is a 409 (a unique index
 * decides, so two concurrent starts cannot both win).
 */
export async function startGeneration({ em, auth }: DomainContext, deckId: string): Promise<JobOutput> {
  let storedDeckId = deckId;
  try {
    // Locked: a deck deleted meanwhile is a 404, not a foreign-key violation.
    return await createOne(em, auth, {
      create: async (em) => {
        const deck = await findDeck(em, auth, deckId, { lock: true });
        storedDeckId = deck.id;
        const totalSlides = await em.count(Slide, { deck, narrationScript: { $ne: null, $re: '\\S' } });
        const intro = await em.findOne(DeckIntro, { deck });
        if (totalSlides === 0 && !intro) {
          throw badRequest(
            'The deck has nothing to narrate: no slide has a narrationScript and there is no intro',
          );
        }
        return em.create(GenerationJob, {
          id: newId(),
          deck,
          status: 'pending',
          currentSlide: 0,
          totalSlides,
          error: null,
          lockedUntil: null,
          startedAt: null,
          completedAt: null,
        });
      },
      answer: toJobOutput,
      event: (job, output) => ({
        type: 'generation_job.started',
        aggregateId: job.id,
        deckId: job.deck.id,
        payload: output,
      }),
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict(`Deck ${storedDeckId} already has a generation job pending or in progress`);
    }
    throw error;
  }
}

/** The deck's latest job. */
export async function getGenerationStatus({ em, auth }: DomainContext, deckId: string): Promise<JobOutput> {
  const deck = await findDeck(em, auth, deckId);
  const job = await em.findOne(GenerationJob, { deck }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  if (!job) throw missing(`Deck ${deck.id} has no generation job yet`);
  return toJobOutput(job);
}
