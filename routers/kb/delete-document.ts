import { successOutput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { findKbDocument } from './find-kb-document.ts';
import { documentIdInput, toKbDocumentOutput } from './kb.schema.ts';
import { recordKbEvent } from './kb-events.ts';

export const deleteDocument = authedProcedure
  .meta({
    openapi: {
      method: 'DELETE',
      path: '/company/kb/documents/{documentId}',
      tags: ['knowledge base'],
      summary: 'Delete a knowledge-base document and its file',
    },
  })
  .input(documentIdInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    const document = await findKbDocument(ctx.em, ctx.auth, input.documentId);
    recordKbEvent(ctx.em, ctx.auth, 'kb_document.deleted', toKbDocumentOutput(document));
    ctx.em.remove(document);
    await ctx.em.flush();
    await ctx.services.storage.delete(document.storageKey);
    return { success: true as const };
  });
