import { TRPCError } from '@trpc/server';
import { badRequest } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { Image } from '../../entities/Image.ts';
import { newId } from '../../entities/ids.ts';
import { objectKeyFor } from '../object-keys.ts';
import { authedProcedure } from '../trpc.ts';
import { bytesOf, uploadedFileInput } from '../uploaded-file.ts';
import { detectImage } from './detect-image.ts';
import { imageOutput, toImageOutput } from './image.schema.ts';

export const uploadImage = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/images',
      tags: ['images'],
      summary: 'Upload an image (multipart part `file`: PNG, JPEG, GIF, WebP or SVG)',
      contentTypes: ['multipart/form-data'],
      errorResponses: [413, 415, 503],
    },
    successStatus: 201,
    multipartLimit: 'imageMaxBytes',
  })
  .input(uploadedFileInput)
  .output(imageOutput)
  .mutation(async ({ ctx, input }) => {
    const { storage, config } = ctx.services;
    const limit = config.uploads.imageMaxBytes;
    if (input.file.size > limit) {
      throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `Images may be at most ${limit} bytes` });
    }
    const bytes = await bytesOf(input.file);
    let detected: Awaited<ReturnType<typeof detectImage>>;
    try {
      detected = await detectImage(bytes);
    } catch {
      throw badRequest('The image could not be read: it looks damaged', [
        { path: ['file'], message: 'unreadable image' },
      ]);
    }
    if (!detected) {
      throw new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message:
          'Only PNG, JPEG, GIF, WebP and SVG images are accepted (judged by the content, not the name)',
      });
    }

    const id = newId();
    const filename = input.file.name.slice(0, 255) || 'image';
    const objectKey = objectKeyFor(ctx.auth.organizationId, 'images', id, filename);
    await storage.put(objectKey, bytes, detected.mimeType);
    try {
      const image = ctx.em.create(Image, {
        id,
        organization: ctx.auth.organizationId,
        filename,
        objectKey,
        mimeType: detected.mimeType,
        size: bytes.length,
        width: detected.width,
        height: detected.height,
        createdAt: new Date(),
      });
      const output = await toImageOutput(image, ctx.services);
      const { url: _url, ...payload } = output;
      recordEvent(ctx.em, { organizationId: ctx.auth.organizationId }, 'image.uploaded', {
        aggregateId: id,
        payload,
      });
      await ctx.em.flush();
      return output;
    } catch (error) {
      // No row, no object: a failed request leaves nothing behind.
      await storage.delete(objectKey).catch(() => {});
      throw error;
    }
  });
