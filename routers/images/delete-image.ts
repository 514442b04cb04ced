import { z } from 'zod';
import { Image } from '../../entities/Image.ts';
import { notFound } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const deleteImage = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/images/{imageId}',
      tags: ['images'],
      summary: 'Delete an image and its file',
    },
  })
  .input(z.object({ imageId: z.uuid() }))
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    const image = await ctx.em.findOne(Image, { id: input.imageId, organization: ctx.auth.organizationId });
    if (!image) throw notFound('Image', input.imageId);
    recordEvent(ctx.em, {
      organizationId: ctx.auth.organizationId,
      aggregateType: 'image',
      eventType: 'image.deleted',
      aggregateId: image.id,
      payload: { id: image.id, filename: image.filename, objectKey: image.objectKey },
    });
    ctx.em.remove(image);
    await ctx.em.flush();
    // The row is gone first: a failure here leaves an unreferenced file, never a broken image.
    await ctx.services.storage.delete(image.objectKey);
    return { success: true as const };
  });
