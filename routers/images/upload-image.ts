import { imageOutput } from '../../domain/images/image-output.ts';
import * as images from '../../domain/images/images.ts';
import { authedProcedure } from '../trpc.ts';
import { uploadedFileInput } from '../uploaded-file.schema.ts';

export const uploadImage = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/images',
      tags: ['images'],
      summary: 'Upload an image (multipart part `file`: PNG, JPEG, GIF, WebP or SVG)',
      description:
        'Stores one image from the multipart part `file`; its type is read from its bytes, not from its name or the declared type. Counts against the heavy limit; too large is 413, a type other than PNG, JPEG, GIF, WebP or SVG 415, a damaged file 400. Event `image.uploaded`.',
      contentTypes: ['multipart/form-data'],
      errorResponses: [408, 413, 415, 503],
    },
    heavy: true,
    successStatus: 201,
    location: '/images/{id}',
    multipartLimit: 'imageMaxBytes',
  })
  .input(uploadedFileInput)
  .output(imageOutput)
  .mutation(({ ctx, input }) => images.uploadImage(ctx, input.file));
