import * as kb from '../../domain/kb/kb.ts';
import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { documentIdInput } from './kb.schema.ts';

export const deleteDocument = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/company/kb/documents/{documentId}',
      tags: ['knowledge base'],
      summary: 'Delete a knowledge-base document and its file',
      description: 'Removes the document and its stored file. Write access; event `kb_document.deleted`.',
    },
  })
  .input(documentIdInput)
  .output(successOutput)
  .mutation(({ ctx, input }) => kb.deleteDocument(ctx, input.documentId));
