import { TRPCError } from '@trpc/server';
import { fileTypeFromBuffer } from 'file-type';
import { z } from 'zod';
import { badRequest } from '../../domain/errors.ts';
import { recordEvent } from '../../domain/events/record-event.ts';
import { newId } from '../../entities/ids.ts';
import {
  DocumentTooLarge,
  DocumentTooSlow,
  type ExtractedText,
  ExtractorBusy,
  UnreadableDocument,
} from '../../server/documents/text-extractor.ts';
import { authedProcedure } from '../trpc.ts';
import { busy, bytesOf, uploadedFileInput } from '../uploaded-file.ts';

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
      errorResponses: [413, 415, 422, 503],
    },
    multipartLimit: 'contractMaxBytes',
  })
  .input(uploadedFileInput)
  .output(importContractOutput)
  .mutation(async ({ ctx, input }) => {
    const limit = ctx.services.config.uploads.contractMaxBytes;
    if (input.file.size > limit) {
      throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `Contracts may be at most ${limit} bytes` });
    }
    const bytes = await bytesOf(input.file);
    const type = await fileTypeFromBuffer(bytes);
    if (!type || !CONTRACT_TYPES.has(type.mime)) {
      throw new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Only PDF and DOCX contracts are accepted (judged by the content, not the name)',
      });
    }
    let document: ExtractedText;
    try {
      document = await ctx.services.textExtractor.extractText(bytes);
    } catch (error) {
      throw contractProblem(error, ctx.services.config.documents);
    }
    if (!document.text.trim()) {
      throw badRequest('The contract has no text to read (a scanned image?)', [
        { path: ['file'], message: 'no text' },
      ]);
    }
    const { variables, analyzer } = await ctx.services.contractAnalyzer.analyze(document);
    const id = newId();
    recordEvent(ctx.em, { organizationId: ctx.auth.organizationId }, 'contract.imported', {
      aggregateId: id,
      payload: { id, filename: input.file.name, fileType: type.mime, analyzer, detectedVariables: variables },
    });
    await ctx.em.flush();
    return { detectedVariables: variables };
  });

/** The answer for a contract that could not be read: why, and whether trying again can help. */
function contractProblem(error: unknown, limits: { timeoutMs: number }): unknown {
  if (error instanceof ExtractorBusy) {
    return busy('Every contract reader is busy; try again shortly', 5);
  }
  if (error instanceof DocumentTooLarge) {
    return new TRPCError({
      code: 'PAYLOAD_TOO_LARGE',
      message: `The contract is too large to analyse: ${error.message}`,
      cause: error,
    });
  }
  if (error instanceof DocumentTooSlow) {
    return new TRPCError({
      code: 'UNPROCESSABLE_CONTENT',
      message: `The contract could not be analysed within ${Math.round(limits.timeoutMs / 1000)} s: it is too complex to read`,
      cause: error,
    });
  }
  if (error instanceof UnreadableDocument) {
    return badRequest('The contract could not be read: it may be damaged or encrypted', [
      { path: ['file'], message: 'unreadable document' },
    ]);
  }
  return error;
}
