import { z } from 'zod';
import { imageOutput } from '../../domain/images/image-output.ts';
import * as images from '../../domain/images/images.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listImages = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/images',
      tags: ['images'],
      summary: 'The organization’s images, newest first',
      description:
        "Every image of the caller's organization, newest first, each with its size, dimensions and a signed address to fetch it.",
    },
  })
  .input(noInput)
  .output(z.object({ images: z.array(imageOutput) }))
  .query(({ ctx }) => images.listImages(ctx));
