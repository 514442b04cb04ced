import { fileTypeFromBuffer } from 'file-type';
import { newId } from '../../entities/ids.ts';
import { byteSize } from '../byte-size.ts';
import type { DomainContext } from '../context.ts';
import {
  badRequest,
  payloadTooLarge,
  tooManyRequests,
  unavailable,
  unprocessable,
  unsupportedMediaType,
} from '../errors.ts';
import { recordEvent } from '../events/events.ts';
import type { ContractFormat } from '../ports/text-extractor.ts';
import { bytesOf } from '../uploaded-file.ts';
import type { ImportContractOutput } from './contract-output.ts';
import type { AnalysedContract } from './contract-variable.ts';
import { DocumentTooLarge, DocumentTooSlow, ExtractorBusy, UnreadableDocument } from './document-failures.ts';

/** The contract formats, by the MIME type file-type reads from the bytes. */
const CONTRACT_FORMATS = new Map<string, ContractFormat>([
  ['application/pdf', 'pdf'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
]);

/** How long a client turned away by busy document readers is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * PDF or DOCX (judged by the bytes, here and nowhere else: a ZIP named .pdf is not a PDF; the
 * reader is told which) → its text (the text extractor and the offline analysis,
 * domain/contracts/analysis/, off the event loop) → the variables a template of it needs (the
 * configured analyzer: the offline analysis, or an AI endpoint checked against it). Writes
 * `contract.imported`; nothing is stored but the event.
 *
 * The size limit (`contractMaxBytes`) is the rule here, for every caller (an operator's script
 * in-process too); over HTTP the procedure's `multipartLimit` also stops the upload as it streams
 * in, so that no more than the limit is ever held in memory (the same 413).
 */
export async function importContract(
  { em, services, auth }: DomainContext,
  file: File,
): Promise<ImportContractOutput> {
  const limit = services.settings.uploads.contractMaxBytes;
  if (file.size > limit) throw payloadTooLarge(`Contracts may be at most ${byteSize(limit)}`);
  const bytes = await bytesOf(file);
  const type = await fileTypeFromBuffer(bytes);
  const format = type && CONTRACT_FORMATS.get(type.mime);
  if (!type || !format) {
    throw unsupportedMediaType(
      'Only PDF and DOCX contracts are accepted (judged by the content, not the name)',
    );
  }
  let document: AnalysedContract;
  try {
    document = await services.textExtractor.extractText(bytes, {
      format,
      organizationId: auth.organizationId,
    });
  } catch (error) {
    throw contractProblem(error, services.settings.documents);
  }
  if (!document.text.trim()) {
    throw badRequest('The contract has no text to read (a scanned image?)', [
      { path: ['file'], message: 'no text' },
    ]);
  }
  const { variables, analyzer } = await services.contractAnalyzer.analyze(document);
  const detectedVariables = [...new Set(variables.map((v) => v.name))];
  const id = newId();
  // The names only: the texts of a filled-in contract are deal terms, which the event log and
  // the webhooks it feeds do not need to carry.
  recordEvent(em, auth, 'contract.imported', {
    aggregateId: id,
    payload: { id, filename: file.name, fileType: type.mime, analyzer, detectedVariables },
  });
  await em.flush();
  return { detectedVariables, variables };
}

/** The answer for a contract that could not be read: why, and whether trying again can help. */
function contractProblem(error: unknown, limits: { timeoutMs: number }): unknown {
  // As the upload budget answers (rest/upload-budget.ts): 429 past the organization's share, 503
  // when the service is full.
  if (error instanceof ExtractorBusy && error.bound === 'organization') {
    return tooManyRequests(
      "Your organization's contracts being read hold as many contract readers as one organization may; send this one when one has finished",
      BUSY_RETRY_AFTER_SECONDS,
    );
  }
  if (error instanceof ExtractorBusy) {
    return unavailable('Every contract reader is busy; try again shortly', BUSY_RETRY_AFTER_SECONDS);
  }
  if (error instanceof DocumentTooLarge) {
    return payloadTooLarge(`The contract is too large to analyse: ${error.message}`, error);
  }
  if (error instanceof DocumentTooSlow) {
    return unprocessable(
      `The contract could not be analysed within ${Math.round(limits.timeoutMs / 1000)} s: it is too complex to read`,
      error,
    );
  }
  if (error instanceof UnreadableDocument) {
    return badRequest('The contract could not be read: it may be damaged or encrypted', [
      { path: ['file'], message: 'unreadable document' },
    ]);
  }
  return error;
}
