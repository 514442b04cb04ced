/*
 * The answer types of the contract analysis: plain types, no schema library, so that the
 * analysis (domain/contracts/analysis/) loads in a reader thread without zod. The answer's
 * schema (contract-output.ts) is built from them.
 */

/** What a template of the contract needs at one place of its text. */
export const VARIABLE_KINDS = ['placeholder', 'value', 'condition', 'list'] as const;
export type VariableKind = (typeof VARIABLE_KINDS)[number];

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
 * A contract's text (the format of `ExtractedDocument`, analysis/extracted-document.ts) and the
 * variables the offline analysis (`analyzeContract`) found in it: what a text extractor answers.
 */
export interface AnalysedContract {
  text: string;
  variables: ContractVariable[];
}

/** A contract analyzer's answer: the variables, and which analyzer answered (the event says so). */
export interface ContractAnalysis {
  variables: ContractVariable[];
  analyzer: string;
}
