import { z } from 'zod';
import { notFound } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { lockRow } from '../../domain/row-lock.ts';
import { Image } from '../../entities/Image.ts';
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
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    const image = await ctx.em.transactional(async (em) => {
      const owned = await em.findOne(Image, { id: input.imageId, organization: ctx.auth.organizationId });
      const locked = owned && (await lockRow(em, Image, owned.id));
      if (!locked) throw notFound('Image', input.imageId);
      recordEvent(em, { organizationId: ctx.auth.organizationId }, 'image.deleted', {
        aggregateId: locked.id,
        payload: { id: locked.id, filename: locked.filename, objectKey: locked.objectKey },
      });
      em.remove(locked);
      await em.flush();
      return locked;
    });
    // The row is gone first: a failure here leaves an unreferenced file, never a broken image.
    await ctx.services.storage.delete(image.objectKey);
    return { success: true as const };
  });
