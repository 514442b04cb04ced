/** What a template of the contract needs at one place of its text. */
export type VariableKind = 'placeholder' | 'value' | 'condition' | 'list';

export interface ContractVariable {
  /** snake_case, unique in one answer. */
  name: string;
  kind: VariableKind;
  /** The placeholder or the value exactly as it stands in the document's text (a PDF form field: its name). */
  text: string;
  /** How many times `text` stands in the document's text (a PDF form field: its widgets) (at least 1). */
  occurrences: number;
}

/**
 * A document's text and the variables the offline analysis found in it (both off the event loop).
 *
 * `text` is the same for a DOCX and for the PDF printed from it: one paragraph a line (a PDF's
 * wrapped lines joined), white space inside a line collapsed to one space, a table's row one line
 * with its cells separated by a tab, no page numbers. Every variable's `text` is a substring of it,
 * but for a fillable PDF's form field, which has no text on the page: its `text` is the field's name.
 */
export interface ExtractedText {
  text: string;
  variables: ContractVariable[];
}

/** Whose document it is: the readers are shared out by organization. */
export interface DocumentOwner {
  organizationId: string;
}

/** Plain text out of a PDF or DOCX, and what the offline analysis finds in it. */
export interface TextExtractor {
  /**
   * Takes ownership of `bytes`: they may be moved to another thread (left empty here).
   * Rejects with one of the failures of `domain/contracts/document-failures.ts`; one
   * organization's documents hold at most a share of the readers (`ExtractorBusy` past it).
   */
  extractText(bytes: Buffer, owner: DocumentOwner): Promise<ExtractedText>;
  /** Documents waiting for a reader (the extraction queue's length, for /metrics). */
  queued?(): number;
  /** Stops the readers it keeps (at shutdown); a document at work is finished first. */
  close?(): Promise<void>;
}
