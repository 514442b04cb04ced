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
    const now = new Date();
    document.status = 'uploaded';
    document.uploadedAt = now;
    document.updatedAt = now;
    const output = toKbDocumentOutput(document);
    recordKbEvent(ctx.em, ctx.auth, 'kb_document.uploaded', output);
    await ctx.em.flush();
    return output;
  });
