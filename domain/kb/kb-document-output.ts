import { z } from 'zod';
import { KB_DOCUMENT_STATUSES, type KbDocument } from '../../entities/KbDocument.ts';

/** A knowledge-base document as every route answers it (and as its events carry it). */
export const kbDocumentOutput = z
  .object({
    id: z.uuid(),
    filename: z.string(),
    displayName: z.string().nullable(),
    contentType: z.string(),
    sizeBytes: z.int(),
    storageKey: z.string(),
    status: z.enum(KB_DOCUMENT_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    uploadedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'KbDocument' });

export type KbDocumentOutput = z.infer<typeof kbDocumentOutput>;

export function toKbDocumentOutput(document: KbDocument): KbDocumentOutput {
  return {
    id: document.id,
    filename: document.filename,
    displayName: document.displayName ?? null,
    contentType: document.contentType,
    sizeBytes: document.sizeBytes,
    storageKey: document.storageKey,
    status: document.status,
    createdAt: document.createdAt.toISOString(),
    updatedAt: document.updatedAt.toISOString(),
    uploadedAt: document.uploadedAt?.toISOString() ?? null,
  };
}

/** What step one of an upload answers: where to PUT the file, and for how long. */
export const kbUploadOutput = z
  .object({
    documentId: z.uuid(),
    uploadUrl: z
      .url()
      .meta({ description: 'Presigned address: PUT the file here, with the same Content-Type' }),
    storageKey: z.string(),
    expiresIn: z.int().meta({ description: 'Seconds the upload address stays valid' }),
  })
  .meta({ id: 'KbUploadInit' });

export type KbUploadOutput = z.infer<typeof kbUploadOutput>;
