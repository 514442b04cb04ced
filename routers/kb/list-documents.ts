import { z } from 'zod';
import * as kb from '../../domain/kb/kb.ts';
import { kbDocumentOutput } from '../../domain/kb/kb-document-output.ts';
import { noInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';

export const listDocuments = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/company/kb/documents',
      tags: ['knowledge base'],
      summary: 'The organization’s knowledge-base documents, newest first',
      description:
        'Every knowledge-base document of the organization, newest first, with its status (`pending` until completed, then `uploaded`).',
    },
  })
  .input(noInput)
  .output(z.object({ documents: z.array(kbDocumentOutput) }))
  .query(({ ctx }) => kb.listDocuments(ctx));
