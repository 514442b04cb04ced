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
      description:
        'Step one of an upload: records the document (type and size checked) and answers a presigned `uploadUrl` to PUT the file to within `expiresIn` seconds, with the same Content-Type and size; then call `…/complete`. Write access; event `kb_document.upload_initiated`.',
    },
    successStatus: 201,
    location: '/company/kb/documents/{documentId}',
  })
  .input(initUploadInput)
  .output(kbUploadOutput)
  .mutation(({ ctx, input }) => kb.initUpload(ctx, input));
