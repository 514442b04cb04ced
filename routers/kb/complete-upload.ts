import * as kb from '../../domain/kb/kb.ts';
import { kbDocumentOutput } from '../../domain/kb/kb-document-output.ts';
import { authedProcedure } from '../trpc.ts';
import { documentIdInput } from './kb.schema.ts';

export const completeUpload = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/company/kb/documents/{documentId}/complete',
      tags: ['knowledge base'],
      summary: 'Finish a knowledge-base upload once the file has been PUT',
      description:
        'Step two of an upload: checks that the file was PUT to `uploadUrl` with the declared size, then marks the document `uploaded`. A missing file, or one of another size (it is discarded), is a 409: upload again. Completing twice is harmless. Event `kb_document.uploaded`.',
      errorResponses: [409],
    },
  })
  .input(documentIdInput)
  .output(kbDocumentOutput)
  .mutation(({ ctx, input }) => kb.completeUpload(ctx, input.documentId));
