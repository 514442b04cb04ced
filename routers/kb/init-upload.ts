import * as kb from '../../domain/kb/kb.ts';
import { kbUploadOutput } from '../../domain/kb/kb-document-output.ts';
import { authedProcedure } from '../trpc.ts';
import { initUploadInput } from './kb.schema.ts';

export const initUpload = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/company/kb/documents/upload-init',
      tags: ['knowledge base'],
      summary: 'Start a knowledge-base upload: returns a presigned PUT address',
    },
    successStatus: 201,
  })
  .input(initUploadInput)
  .output(kbUploadOutput)
  .mutation(({ ctx, input }) => kb.initUpload(ctx, input));
