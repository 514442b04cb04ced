import { z } from 'zod';
import { imageOutput } from '../../domain/images/image-output.ts';
import * as images from '../../domain/images/images.ts';
import { authedProcedure } from '../trpc.ts';

export const getImage = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/images/{imageId}',
      tags: ['images'],
      summary: 'Get an image',
      description:
        "One image of the caller's organization, with its size, dimensions and a signed address to fetch it.",
    },
  })
  .input(z.object({ imageId: z.uuid() }))
  .output(imageOutput)
  .query(({ ctx, input }) => images.getImage(ctx, input.imageId));
