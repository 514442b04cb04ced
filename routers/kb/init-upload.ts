import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { newId } from '../../entities/ids.ts';
import { KbDocument } from '../../entities/KbDocument.ts';
import { objectKeyFor } from '../object-keys.ts';
import { text } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { toKbDocumentOutput } from './kb.schema.ts';
import { recordKbEvent } from './kb-events.ts';

export const initUploadInput = z.strictObject({
  filename: text().trim().min(1).max(255),
  contentType: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/,
      'must be a media type such as application/pdf',
    ),
  sizeBytes: z.int().min(1, 'must be at least 1 byte'),
  displayName: text().trim().min(1).max(255).optional(),
});

export const initUploadOutput = z
  .object({
    documentId: z.uuid(),
    uploadUrl: z
      .url()
      .meta({ description: 'Presigned address: PUT the file here, with the same Content-Type' }),
    storageKey: z.string(),
    expiresIn: z.int().meta({ description: 'Seconds the upload address stays valid' }),
  })
  .meta({ id: 'KbUploadInit' });

/**
 * Step one of a knowledge-base upload: checks the declared file, records a `pending`
 * document and hands out a presigned PUT address for it. Step two is `complete`.
 */
export const initUpload = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/company/kb/documents/upload-init',
      tags: ['knowledge base'],
      summary: 'Start a knowledge-base upload: returns a presigned PUT address',
    },
    successStatus: 201,
  })
  .input(initUploadInput)
  .output(initUploadOutput)
  .mutation(async ({ ctx, input }) => {
    const { uploads, storage: storageConfig } = ctx.services.config;
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
    const storageKey = objectKeyFor(ctx.auth.organizationId, 'kb', id, input.filename);
    const now = new Date();
    const document = ctx.em.create(KbDocument, {
      id,
      organization: ctx.auth.organizationId,
      filename: input.filename,
      displayName: input.displayName ?? null,
      contentType: input.contentType,
      sizeBytes: input.sizeBytes,
      storageKey,
      status: 'pending',
      uploadedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const expiresIn = storageConfig.uploadUrlExpiresSeconds;
    const uploadUrl = await ctx.services.storage.signedUploadUrl(storageKey, {
      contentType: input.contentType,
      maxBytes: input.sizeBytes,
      expiresInSeconds: expiresIn,
    });
    recordKbEvent(ctx.em, ctx.auth, 'kb_document.upload_initiated', toKbDocumentOutput(document));
    await ctx.em.flush();
    return { documentId: id, uploadUrl, storageKey, expiresIn };
  });
