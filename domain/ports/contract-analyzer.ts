import type { ContractVariable, ExtractedText } from './text-extractor.ts';

/** Finds the variables of a contract's text, for turning it into a template. */
export interface ContractAnalyzer {
  readonly name: string;
  analyze(document: ExtractedText): Promise<{ variables: ContractVariable[]; analyzer: string }>;
}
