import { type ContractVariable, VARIABLE_KINDS, type VariableKind } from '../contract-variable.ts';
import { type Finding, indexWithin, MAX_VARIABLE_TEXT, MAX_VARIABLES, toVariables } from './findings.ts';
import { toSnakeCase } from './placeholders.ts';

/**
 * The rules for the variables an AI model proposes (adapters/contract-ai/contract-analyzer.ts asks
 * the model): a model may invent or paraphrase, so each variable is kept only where its `text`
 * stands in the part of the document it was shown, and the offline analysis fills in what it missed.
 * Runs on the event loop (the model's answer arrives there): every check is linear and bounded.
 */

/** How much of the text the model is shown, and how many of its variables are checked. */
export const MODEL_TEXT_CHARS = 200_000;
const MAX_MODEL_VARIABLES = 100;
/** Each name the model gives is at most this long. */
const MAX_NAME_LENGTH = 200;

/** A variable as the model proposes it. */
export interface ProposedVariable {
  name: string;
  kind: VariableKind;
  text: string;
}

/** The well-formed ones of the model's variables (at most MAX_VARIABLES looked at), named in snake_case. */
export function wellFormed(items: unknown[]): ProposedVariable[] {
  const kept: ProposedVariable[] = [];
  for (const item of items.slice(0, MAX_VARIABLES)) {
    if (typeof item !== 'object' || item === null) continue;
    const { name, kind, text } = item as Record<string, unknown>;
    if (typeof name !== 'string' || typeof text !== 'string' || typeof kind !== 'string') continue;
    if (!VARIABLE_KINDS.includes(kind as VariableKind) || name.length > MAX_NAME_LENGTH) continue;
    // A text a client replaces must say something: not a letter or a space alone.
    if (text.trim().length < 2 || text.length > MAX_VARIABLE_TEXT) continue;
    const snake = toSnakeCase(name);
    if (snake) kept.push({ name: snake, kind: kind as VariableKind, text });
  }
  return kept;
}

/** The model's variables that stand in the text, then the offline ones it missed. */
export function mergeChecked(
  text: string,
  proposed: readonly ProposedVariable[],
  offline: readonly ContractVariable[],
): ContractVariable[] {
  // Each check is linear (indexWithin), over the part the model was shown, for at most
  // MAX_MODEL_VARIABLES texts.
  const findings: Finding[] = [];
  for (const variable of proposed.slice(0, MAX_MODEL_VARIABLES)) {
    const index = indexWithin(text, variable.text, MODEL_TEXT_CHARS);
    if (index >= 0) findings.push({ ...variable, index });
  }
  const fromModel = toVariables(text, findings);
  const seen = new Set(fromModel.map((v) => v.text));
  const names = new Set(fromModel.map((v) => v.name));
  const merged = [...fromModel];
  for (const variable of offline) {
    if (seen.has(variable.text) || merged.length >= MAX_VARIABLES) continue;
    // An offline value under a name the model already gave another text keeps its own text,
    // under a name of its own.
    let name = variable.name;
    for (let n = 2; variable.kind === 'value' && names.has(name); n += 1) name = `${variable.name}_${n}`;
    names.add(name);
    seen.add(variable.text);
    // Its count is the worker's (a form field's is its widgets): nothing is recounted here, on
    // the event loop.
    merged.push({ ...variable, name });
  }
  return merged;
}
