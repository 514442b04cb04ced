import type { ContractVariable } from '../../domain/ports/text-extractor.ts';
import { type Finding, toVariables } from './findings.ts';
import { scanPlaceholders } from './placeholders.ts';
import { detectValues, looksLikeTemplate } from './values.ts';

/**
 * The offline analysis of a contract's text (run in the extraction worker): the placeholders
 * and directives it marks, its form fields, and the filled-in values it holds. Placeholders
 * come first, so a value inside a placeholder (a date in `[Date by which …]`) is not a value.
 */
export function analyzeOffline(text: string, formFields: readonly Finding[]): ContractVariable[] {
  const placeholders = scanPlaceholders(text);
  // A template's blanks are its variables; a value scan of a template finds the publisher's own
  // example dates and amounts, so values are sought only where placeholders are few and far apart.
  const values = looksLikeTemplate([...formFields, ...placeholders], text.length) ? [] : detectValues(text);
  return toVariables(text, [...formFields, ...placeholders, ...values]);
}
