import { TRPCError } from '@trpc/server';
import { fileTypeFromBuffer } from 'file-type';
import { z } from 'zod';
import { newId } from '../../entities/ids.ts';
import { UnreadableDocument } from '../../server/documents/text-extractor.ts';
import { badRequest } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { authedProcedure } from '../trpc.ts';

const CONTRACT_TYPES = new Set([
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
]);

export const importContractOutput = z
  .object({
    detectedVariables: z
      .array(z.string())
      .meta({ description: 'snake_case, unique, in order of first appearance' }),
  })
  .meta({ id: 'ContractImport' });

/**
 * PDF or DOCX (judged by the bytes: a ZIP named .pdf is not a PDF) → its text (officeparser,
 * in a worker) → the variables a template of it needs (the configured analyzer).
 */
export const importContract = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/contracts/import',
      tags: ['contracts'],
      summary: 'Detect the variables of a contract (multipart part `file`: PDF or DOCX, at most 10 MB)',
      contentTypes: ['multipart/form-data'],
      errorResponses: [413, 415],
    },
    multipartLimit: 'contractMaxBytes',
  })
  .input(z.object({ file: z.file() }))
  .output(importContractOutput)
  .mutation(async ({ ctx, input }) => {
    const limit = ctx.services.config.uploads.contractMaxBytes;
    if (input.file.size > limit) {
      throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `Contracts may be at most ${limit} bytes` });
    }
    const bytes = Buffer.from(await input.file.arrayBuffer());
    const type = await fileTypeFromBuffer(bytes);
    if (!type || !CONTRACT_TYPES.has(type.mime)) {
      throw new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Only PDF and DOCX contracts are accepted (judged by the content, not the name)',
      });
    }
    let text: string;
    try {
      text = await ctx.services.textExtractor.extractText(bytes);
    } catch (error) {
      if (!(error instanceof UnreadableDocument)) throw error;
      throw badRequest('The contract could not be read: it may be damaged or encrypted', [
        { path: ['file'], message: 'unreadable document' },
      ]);
    }
    if (!text.trim()) {
      throw badRequest('The contract has no text to read (a scanned image?)', [
        { path: ['file'], message: 'no text' },
      ]);
    }
    const { variables, analyzer } = await ctx.services.contractAnalyzer.analyze(text);
    const id = newId();
    recordEvent(ctx.em, {
      organizationId: ctx.auth.organizationId,
      aggregateType: 'contract',
      eventType: 'contract.imported',
      aggregateId: id,
      payload: { id, filename: input.file.name, fileType: type.mime, analyzer, detectedVariables: variables },
    });
    await ctx.em.flush();
    return { detectedVariables: variables };
  });
