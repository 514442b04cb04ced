import { z } from 'zod';
import * as generation from '../../domain/generation/generation.ts';
import { jobOutput } from '../../domain/generation/job-output.ts';
import { authedProcedure } from '../trpc.ts';

/**
 * Queues a narration job (202): a worker speaks every slide's script, then the intro's.
 * One pending or processing job per deck: another start is a 409.
 */
export const startGeneration = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/decks/{deckId}/generate',
      tags: ['generation'],
      summary: 'Start narrating the deck (speaks every slide’s script and the intro)',
      description:
        "Queues a job that speaks every slide's `narrationScript` and the intro with the deck's voice and stores the audio on each slide; follow it with `GET …/generate/status`. A script whose audio would be larger than the service allows (`SPEECH_MAX_AUDIO_BYTES`) fails the job, with the reason. One running job per deck: another while one is pending or processing is a 409. Counts against the heavy limit; event `generation_job.started`.",
      errorResponses: [409],
    },
    heavy: true,
    successStatus: 202,
  })
  .input(z.strictObject({ deckId: z.uuid() }))
  .output(jobOutput)
  .mutation(({ ctx, input }) => generation.startGeneration(ctx, input.deckId));
