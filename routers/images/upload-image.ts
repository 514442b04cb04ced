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
      contentTypes: ['multipart/form-data'],
      errorResponses: [408, 413, 415, 503],
    },
    heavy: true,
    successStatus: 201,
    multipartLimit: 'imageMaxBytes',
  })
  .input(uploadedFileInput)
  .output(imageOutput)
  .mutation(({ ctx, input }) => images.uploadImage(ctx, input.file));
