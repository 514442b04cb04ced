import type { ContractVariable } from '../contract-variable.ts';
import type { ExtractedDocument } from './extracted-document.ts';
import { type Finding, toVariables } from './findings.ts';
import { formFieldFindings } from './form-fields.ts';
import { scanPlaceholders } from './placeholders.ts';
import { detectValues, looksLikeTemplate } from './values.ts';

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
 * values it holds. Placeholders come first, so a value inside a placeholder (a date in
 * `[Date by which …]`) is not a value.
 */
export function analyzeOffline(text: string, formFields: readonly Finding[]): ContractVariable[] {
  const placeholders = scanPlaceholders(text);
  // A template's blanks are its variables; a value scan of a template finds the publisher's own
  // example dates and amounts, so values are sought only where placeholders are few and far apart.
  const values = looksLikeTemplate([...formFields, ...placeholders], text.length) ? [] : detectValues(text);
  return toVariables(text, [...formFields, ...placeholders, ...values]);
}
