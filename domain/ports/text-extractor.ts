/** A document's plain text, and the placeholders that text names (both found off the event loop). */
export interface ExtractedText {
  text: string;
  placeholders: string[];
}

/** Plain text out of a PDF or DOCX. */
export interface TextExtractor {
  /**
   * Takes ownership of `bytes`: they may be moved to another thread (left empty here).
   * Rejects with one of the failures of `domain/contracts/document-failures.ts`.
   */
  extractText(bytes: Buffer): Promise<ExtractedText>;
}
