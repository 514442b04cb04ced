import { LockMode } from '@mikro-orm/core';
import { conflict, notFound } from '../../domain/errors.ts';
import { KbDocument } from '../../entities/KbDocument.ts';
import { authedProcedure } from '../trpc.ts';
import { findKbDocument } from './find-kb-document.ts';
import { documentIdInput, kbDocumentOutput, toKbDocumentOutput } from './kb.schema.ts';
import { recordKbEvent } from './kb-events.ts';

/**
 * Step two: the file must be in storage with the declared size; then the document is
 * `uploaded` and its object final (`storage.finishUpload`: no upload address can change it).
 * A file of another size is deleted, so nothing oversized stays and the client may PUT again.
 */
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
    const { storage } = ctx.services;
    // Outside the transaction (it may copy the object); it is idempotent, so concurrent
    // completes may both run it, and the row lock below picks one to record the change.
    const finished = await storage.finishUpload(document.storageKey, document.sizeBytes);
    if (!finished.ok) {
      throw conflict(
        finished.reason === 'size'
          ? `The uploaded file has ${finished.size} bytes, but ${document.sizeBytes} were declared; it was discarded, upload it again`
          : finished.reason === 'changed'
            ? 'The file was replaced while it was being completed; complete again'
            : 'The file has not been uploaded to uploadUrl yet',
      );
    }
    return ctx.em.transactional(async (em) => {
      const locked = await em.findOne(
        KbDocument,
        { id: document.id, organization: ctx.auth.organizationId },
        { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
      );
      if (!locked) {
        // Deleted meanwhile: the object finished above must not outlive it.
        await storage.delete(document.storageKey);
        throw notFound('Document', document.id);
      }
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
