import { slideAudioOutput } from '../../domain/slides/slide-output.ts';
import * as slides from '../../domain/slides/slides.ts';
import { authedProcedure } from '../trpc.ts';
import { slideIdParam } from './slide.schema.ts';

/** A playable address for a slide's audio (its `audioUrl` field is an object key). */
export const getSlideAudio = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/slides/{slideId}/audio',
      tags: ['slides'],
      summary: 'A signed address that plays the slide’s narration',
      description:
        "A signed, expiring address (`url`, `expiresIn`) that plays the slide's narration; 404 while the slide has no audio.",
    },
  })
  .input(slideIdParam)
  .output(slideAudioOutput)
  .query(({ ctx, input }) => slides.getSlideAudio(ctx, input.slideId));
