import { z } from 'zod';
import { KbDocument } from '../../entities/KbDocument.ts';
import { authedProcedure } from '../trpc.ts';
import { kbDocumentOutput, toKbDocumentOutput } from './kb.schema.ts';

export const listDocuments = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/company/kb/documents',
      tags: ['knowledge base'],
      summary: 'The organization’s knowledge-base documents, newest first',
    },
  })
  .input(z.object({}))
  .output(z.object({ documents: z.array(kbDocumentOutput) }))
  .query(async ({ ctx }) => {
    const documents = await ctx.em.find(
      KbDocument,
      { organization: ctx.auth.organizationId },
      { orderBy: { createdAt: 'desc', id: 'desc' } },
    );
    return { documents: documents.map(toKbDocumentOutput) };
  });
