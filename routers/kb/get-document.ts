import * as kb from '../../domain/kb/kb.ts';
import { kbDocumentOutput } from '../../domain/kb/kb-document-output.ts';
import { authedProcedure } from '../trpc.ts';
import { documentIdInput } from './kb.schema.ts';

export const getDocument = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/company/kb/documents/{documentId}',
      tags: ['knowledge base'],
      summary: 'Get a knowledge-base document',
      description:
        'One knowledge-base document of the organization, with its status (`pending` until completed, then `uploaded`).',
    },
  })
  .input(documentIdInput)
  .output(kbDocumentOutput)
  .query(({ ctx, input }) => kb.getDocument(ctx, input.documentId));
