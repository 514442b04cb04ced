import type { ContractVariable } from '../contract-variable.ts';
import type { ExtractedDocument } from './extracted-document.ts';
import { type Finding, toVariables } from './findings.ts';
import { formFieldFindings } from './form-fields.ts';
import { scanPlaceholders } from './placeholders.ts';
import { detectValues } from './values.ts';

/**
 * The offline analysis of an extracted contract: pure, and linear in its text (contracts are user
 * input), but seconds on a long one, so the text extractor runs it in its reader thread, off the
 * event loop (adapters/documents/extract-worker.ts).
 */
export function analyzeContract({ text, formFields }: ExtractedDocument): ContractVariable[] {
  return analyzeOffline(text, formFieldFindings(text, formFields));
}

/**
 * The placeholders and directives a text marks, its form fields' findings, and the filled-in
 * values it holds, both kinds in one answer: a draft is both. Every placeholder is reported;
 * values are sought in every document, and each candidate is kept or dropped where it stands
 * (`detectValues`, docs/decisions/082-values-and-placeholders-per-span.md), never by a verdict
 * on the whole document.
 */
export function analyzeOffline(text: string, formFields: readonly Finding[]): ContractVariable[] {
  const blanks = [...formFields, ...scanPlaceholders(text)];
  return toVariables(text, [...blanks, ...detectValues(text, blanks)]);
}
