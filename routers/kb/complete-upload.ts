import { conflict } from '../errors.ts';
import { authedProcedure } from '../trpc.ts';
import { findKbDocument } from './find-kb-document.ts';
import { documentIdInput, kbDocumentOutput, toKbDocumentOutput } from './kb.schema.ts';
import { recordKbEvent } from './kb-events.ts';

/** Step two: the file must be in storage with the declared size; then the document is `uploaded`. */
export const completeUpload = authedProcedure
  .meta({
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
  .mutation(async ({ ctx, input }) => {
    const document = await findKbDocument(ctx.em, ctx.auth, input.documentId);
    if (document.status === 'uploaded') return toKbDocumentOutput(document);
    const stored = await ctx.services.storage.head(document.storageKey);
    if (!stored) throw conflict('The file has not been uploaded to uploadUrl yet');
    if (stored.size !== document.sizeBytes) {
      throw conflict(`The uploaded file has ${stored.size} bytes, but ${document.sizeBytes} were declared`);
    }
    // Locked and read again: a concurrent delete is a 404, a concurrent complete writes the one event.
    return ctx.em.transactional(async (em) => {
      const locked = await findKbDocument(em, ctx.auth, input.documentId, { lock: true });
      if (locked.status === 'uploaded') return toKbDocumentOutput(locked);
      const now = new Date();
      locked.status = 'uploaded';
      locked.uploadedAt = now;
      locked.updatedAt = now;
      const output = toKbDocumentOutput(locked);
      recordKbEvent(em, ctx.auth, 'kb_document.uploaded', output);
      await em.flush();
      return output;
    });
  });
