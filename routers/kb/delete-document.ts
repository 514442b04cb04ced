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
    // Locked: of two concurrent deletes one answers 404, and one event is written.
    const document = await ctx.em.transactional(async (em) => {
      const found = await findKbDocument(em, ctx.auth, input.documentId, { lock: true });
      recordKbEvent(em, ctx.auth, 'kb_document.deleted', toKbDocumentOutput(found));
      em.remove(found);
      await em.flush();
      return found;
    });
    await ctx.services.storage.delete(document.storageKey);
    return { success: true as const };
  });
