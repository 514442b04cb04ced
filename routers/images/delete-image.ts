import { z } from 'zod';
import * as images from '../../domain/images/images.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const deleteImage = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/images/{imageId}',
      tags: ['images'],
      summary: 'Delete an image and its file',
      description: 'Removes the image and its stored file. Write access; event `image.deleted`.',
    },
  })
  .input(z.object({ imageId: z.uuid() }))
  .output(successOutput)
  .mutation(({ ctx, input }) => images.deleteImage(ctx, input.imageId));
