import * as generation from '../../domain/generation/generation.ts';
import { jobOutput } from '../../domain/generation/job-output.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const getGenerationStatus = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/generate/status',
      tags: ['generation'],
      summary: 'The status of the deck’s latest generation job',
      description:
        "The deck's most recent job: `pending`, `processing`, `completed` or `failed`, with `currentSlide` of `totalSlides` done. 404 when the deck never had one.",
    },
  })
  .input(deckIdInput)
  .output(jobOutput)
  .query(({ ctx, input }) => generation.getGenerationStatus(ctx, input.deckId));
