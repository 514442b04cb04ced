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
      errorResponses: [409],
    },
  })
  .input(documentIdInput)
  .output(kbDocumentOutput)
  .mutation(({ ctx, input }) => kb.completeUpload(ctx, input.documentId));
