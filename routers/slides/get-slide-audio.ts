import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { downloadUrlFor } from '../../domain/object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { findSlide } from './find-slide.ts';
import { slideIdParam } from './slide.schema.ts';

/** A playable address for a slide's audio (its `audioUrl` field is an object key). */
export const getSlideAudio = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/slides/{slideId}/audio',
      tags: ['slides'],
      summary: 'A signed address that plays the slide’s narration',
    },
  })
  .input(slideIdParam)
  .output(z.object({ url: z.url(), expiresIn: z.int() }).meta({ id: 'AudioAddress' }))
  .query(async ({ ctx, input }) => {
    const slide = await findSlide(ctx.em, ctx.auth, input.slideId);
    if (!slide.audioUrl)
      throw new TRPCError({ code: 'NOT_FOUND', message: `Slide ${slide.id} has no audio yet` });
    return {
      url: (await downloadUrlFor(ctx.services, slide.audioUrl))!,
      expiresIn: ctx.services.config.storage.downloadUrlExpiresSeconds,
    };
  });
