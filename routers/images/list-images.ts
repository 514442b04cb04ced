import { z } from 'zod';
import { Image } from '../../entities/Image.ts';
import { authedProcedure } from '../trpc.ts';
import { imageOutput, toImageOutput } from './image.schema.ts';

export const listImages = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/images',
      tags: ['images'],
      summary: 'The organization’s images, newest first',
    },
  })
  .input(z.object({}))
  .output(z.object({ images: z.array(imageOutput) }))
  .query(async ({ ctx }) => {
    const images = await ctx.em.find(
      Image,
      { organization: ctx.auth.organizationId },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    );
    return {
      images: await Promise.all(images.map((image) => toImageOutput(image, ctx.services))),
    };
  });
