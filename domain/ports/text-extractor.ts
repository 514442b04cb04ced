import type { AnalysedContract } from '../contracts/contract-variable.ts';

/** The two formats a contract may be in, as the import judged it by its bytes (once). */
export type ContractFormat = 'pdf' | 'docx';

/** The document to read: its format, and whose it is (the readers are shared out by organization). */
export interface DocumentToRead {
  format: ContractFormat;
  organizationId: string;
}

/**
 * A PDF or DOCX turned into an `ExtractedDocument` (domain/contracts/analysis/extracted-document.ts)
 * and analysed by `analyzeContract` (domain/contracts/analysis/offline-analysis.ts), both off the
 * event loop. Every variable's `text` is a substring of the answer's text, but for a fillable
 * PDF's form field, which has no text on the page: its `text` is the field's name.
 */
export interface TextExtractor {
  /**
   * Takes ownership of `bytes`: they may be moved to another thread (left empty here).
   * Rejects with one of the failures of `domain/contracts/document-failures.ts`; one
   * organization's documents hold at most a share of the readers (`ExtractorBusy` past it).
   */
  extractText(bytes: Buffer, document: DocumentToRead): Promise<AnalysedContract>;
  /** Documents waiting for a reader (the extraction queue's length, for /metrics). */
  queued?(): number;
  /** Stops the readers it keeps (at shutdown); a document at work is finished first. */
  close?(): Promise<void>;
}
