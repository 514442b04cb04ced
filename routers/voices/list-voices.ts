import { z } from 'zod';
import { DomainError } from '../../domain/errors.ts';
import { authedProcedure } from '../trpc.ts';

export const voiceOutput = z
  .object({
    voice_id: z.string(),
    name: z.string(),
    category: z.string(),
    preview_url: z.string().meta({ description: 'An address that plays a short sample of the voice' }),
    labels: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Voice' });

export const listVoices = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/voices/list',
      tags: ['voices'],
      summary: 'Voices suited to sales presentations, with preview addresses',
      errorResponses: [503],
    },
  })
  .input(z.object({}))
  .output(z.object({ voices: z.array(voiceOutput) }))
  .query(async ({ ctx }) => {
    try {
      return { voices: await ctx.services.voices.list() };
    } catch (error) {
      // No Retry-After: when the provider is back is not known.
      throw new DomainError('unavailable', `The voice provider is unavailable: ${(error as Error).message}`);
    }
  });
