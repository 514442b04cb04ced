import { TRPCError } from '@trpc/server';
import { findDeck } from '../../domain/decks/find-deck.ts';
import { GenerationJob } from '../../entities/GenerationJob.ts';
import { deckIdInput } from '../decks/deck.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { jobOutput, toJobOutput } from './job.schema.ts';

export const getGenerationStatus = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/generate/status',
      tags: ['generation'],
      summary: 'The status of the deck’s latest generation job',
    },
  })
  .input(deckIdInput)
  .output(jobOutput)
  .query(async ({ ctx, input }) => {
    const deck = await findDeck(ctx.em, ctx.auth, input.deckId);
    const job = await ctx.em.findOne(GenerationJob, { deck }, { orderBy: { createdAt: 'desc', id: 'desc' } });
    if (!job)
      throw new TRPCError({ code: 'NOT_FOUND', message: `Deck ${deck.id} has no generation job yet` });
    return toJobOutput(job);
  });
