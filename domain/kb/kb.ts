import { LockMode } from '@mikro-orm/core';
import { newId } from '../../entities/ids.ts';
import { KbDocument } from '../../entities/KbDocument.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { recordEvent } from '../events/events.ts';
import { createOne, writeAndReload } from '../mutation.ts';
import { objectKeyFor } from '../object-keys.ts';
import { findKbDocument } from './find-kb-document.ts';
import { type KbDocumentOutput, type KbUploadOutput, toKbDocumentOutput } from './kb-document-output.ts';

/**
 * Step one of a knowledge-base upload: checks the declared file, records a `pending`
 * document and hands out a presigned PUT address for it. Step two is `completeUpload`.
 */
export async function initUpload(
  { em, services, auth }: DomainContext,
  input: { filename: string; contentType: string; sizeBytes: number; displayName?: string },
): Promise<KbUploadOutput> {
  const { uploads, storage: storageConfig } = services.settings;
  if (!uploads.kbAllowedTypes.includes(input.contentType)) {
    throw badRequest(`${input.contentType} is not an accepted document type`, [
      { path: ['contentType'], message: `must be one of ${uploads.kbAllowedTypes.join(', ')}` },
    ]);
  }
  if (input.sizeBytes > uploads.kbMaxBytes) {
    throw badRequest(`Documents may be at most ${uploads.kbMaxBytes} bytes`, [
      { path: ['sizeBytes'], message: `must be at most ${uploads.kbMaxBytes}` },
    ]);
  }
  const id = newId();
  const storageKey = objectKeyFor(auth.organizationId, 'kb', id, input.filename);
  const expiresIn = storageConfig.uploadUrlExpiresSeconds;
  const uploadUrl = await services.storage.signedUploadUrl(storageKey, {
    contentType: input.contentType,
    maxBytes: input.sizeBytes,
    expiresInSeconds: expiresIn,
  });
  await createOne(em, auth, {
    create: (em) =>
      em.create(KbDocument, {
        id,
        organization: auth.organizationId,
        filename: input.filename,
        displayName: input.displayName ?? null,
        contentType: input.contentType,
        sizeBytes: input.sizeBytes,
        storageKey,
        status: 'pending',
        uploadedAt: null,
      }),
    answer: toKbDocumentOutput,
    event: (_, output) => ({ type: 'kb_document.upload_initiated', aggregateId: id, payload: output }),
  });
  return { documentId: id, uploadUrl, storageKey, expiresIn };
}

/**
 * Step two: the file must be in storage with the declared size; then the document is
 * `uploaded` and its object final (`storage.finishUpload`: no upload address can change it).
 * A file of another size is deleted, so nothing oversized stays and the client may PUT again.
 */
export async function completeUpload(
  { em, services, auth }: DomainContext,
  documentId: string,
): Promise<KbDocumentOutput> {
  const document = await findKbDocument(em, auth, documentId);
  if (document.status === 'uploaded') return toKbDocumentOutput(document);
  const { storage } = services;
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
  return em.transactional(async (em) => {
    const locked = await em.findOne(
      KbDocument,
      { id: document.id, organization: auth.organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!locked) {
      // Deleted meanwhile: the object finished above must not outlive it.
      await storage.delete(document.storageKey);
      throw notFound('Document', document.id);
    }
    if (!applyChanges(locked, { status: 'uploaded' })) return toKbDocumentOutput(locked);
    // The moment it became uploaded is the moment of the change: the database's time, read back.
    await writeAndReload(em, locked);
    locked.uploadedAt = locked.updatedAt;
    await writeAndReload(em, locked);
    const output = toKbDocumentOutput(locked);
    recordEvent(em, auth, 'kb_document.uploaded', { aggregateId: locked.id, payload: output });
    await em.flush();
    return output;
  });
}

/** The organization's documents, newest first. */
export async function listDocuments({ em, auth }: DomainContext): Promise<{ documents: KbDocumentOutput[] }> {
  const documents = await em.find(
    KbDocument,
    { organization: auth.organizationId },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return { documents: documents.map(toKbDocumentOutput) };
}

export async function getDocument(
  { em, auth }: DomainContext,
  documentId: string,
): Promise<KbDocumentOutput> {
  return toKbDocumentOutput(await findKbDocument(em, auth, documentId));
}

export async function deleteDocument(
  { em, services, auth }: DomainContext,
  documentId: string,
): Promise<{ success: true }> {
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  const document = await em.transactional(async (em) => {
    const found = await findKbDocument(em, auth, documentId, { lock: true });
    recordEvent(em, auth, 'kb_document.deleted', {
      aggregateId: found.id,
      payload: toKbDocumentOutput(found),
    });
    em.remove(found);
    await em.flush();
    return found;
  });
  await services.storage.delete(document.storageKey);
  return { success: true as const };
}
