import type { AnalysedContract, ContractAnalysis } from '../contracts/contract-variable.ts';

/** Finds the variables of a contract's text, for turning it into a template. */
export interface ContractAnalyzer {
  readonly name: string;
  analyze(document: AnalysedContract): Promise<ContractAnalysis>;
}
