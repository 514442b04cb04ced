import type { ContractAnalyzer } from '../../domain/ports/contract-analyzer.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import type { ContractVariable, VariableKind } from '../../domain/ports/text-extractor.ts';
import { type Finding, indexWithin, MAX_VARIABLE_TEXT, MAX_VARIABLES, toVariables } from './findings.ts';
import { offlineAnalyzer } from './offline-analyzer.ts';
import { toSnakeCase } from './placeholders.ts';

interface AiSettings {
  url: string;
  key?: string;
  model: string;
  timeoutMs: number;
}

/**
 * An OpenAI-compatible chat-completions endpoint asked for structured output in the answer's
 * own shape. Each variable whose `text` does not stand in the document is dropped (a model
 * may invent or paraphrase); the rest are merged with the offline analysis, the model's names
 * first. On an error or timeout the offline analysis answers alone, and the log says why.
 */
export function createAiContractAnalyzer(settings: AiSettings, logger: Logger): ContractAnalyzer {
  return {
    name: 'ai',
    async analyze(document) {
      try {
        const proposed = await askForVariables(settings, document.text);
        return { variables: mergeChecked(document.text, proposed, document.variables), analyzer: 'ai' };
      } catch (error) {
        logger.warn(
          { reason: (error as Error).message },
          'contract AI analysis failed; using the offline analysis',
        );
        return offlineAnalyzer.analyze(document);
      }
    },
  };
}

/** How much of the text the model is shown, and how many of its variables are checked. */
const MODEL_TEXT_CHARS = 200_000;
const MAX_MODEL_VARIABLES = 100;

const KINDS: readonly VariableKind[] = ['placeholder', 'value', 'condition', 'list'];

/** The model's variables that stand in the text, then the offline ones it missed. */
function mergeChecked(
  text: string,
  proposed: { name: string; kind: VariableKind; text: string }[],
  offline: readonly ContractVariable[],
): ContractVariable[] {
  // Runs on the event loop: each check is linear (indexWithin), over the part the model was
  // shown, for at most MAX_MODEL_VARIABLES texts.
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

const INSTRUCTIONS = `You turn contracts into templates. List the variables of the contract below, in order
of first appearance:
- every placeholder it already has ({name}, {{name}}, [Name], [a description of the blank], <<Name>>,
  «Name», "Label: ____"), kind "placeholder";
- the subject of each template directive ({IF x} → x, kind "condition"; {FOR d IN items} → items,
  kind "list"); a directive itself is never a variable;
- every filled-in value that would change from one deal to the next (party names, people, addresses,
  e-mail addresses, phone numbers, dates, amounts, percentages, durations, governing law, venue),
  kind "value".
For each, "name" is snake_case from its context (the label, the defined term, the role), and "text" is
the placeholder or the value copied exactly, character for character, from the contract.`;

async function askForVariables(settings: AiSettings, text: string) {
  const response = await fetch(`${settings.url}/chat/completions`, {
    method: 'POST',
    signal: AbortSignal.timeout(settings.timeoutMs),
    headers: {
      'content-type': 'application/json',
      ...(settings.key ? { authorization: `Bearer ${settings.key}` } : {}),
    },
    body: JSON.stringify({
      model: settings.model,
      temperature: 0,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: text.slice(0, MODEL_TEXT_CHARS) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'contract_variables',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              variables: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    kind: { type: 'string', enum: KINDS },
                    text: { type: 'string' },
                  },
                  required: ['name', 'kind', 'text'],
                  additionalProperties: false,
                },
              },
            },
            required: ['variables'],
            additionalProperties: false,
          },
        },
      },
    }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(
      `the AI endpoint answered ${response.status}${body?.error?.message ? `: ${body.error.message}` : ''}`,
    );
  }
  const completion = (await response.json()) as {
    choices?: { message?: { content?: string; refusal?: string } }[];
  };
  const message = completion.choices?.[0]?.message;
  if (!message?.content)
    throw new Error(message?.refusal ? `the model refused: ${message.refusal}` : 'the answer had no content');
  const parsed = JSON.parse(message.content) as { variables?: unknown };
  if (!Array.isArray(parsed.variables)) throw new Error('the answer had no variables array');
  return wellFormed(parsed.variables);
}

/** At most this many of the model's variables are looked at, each name at most this long. */
const MAX_NAME_LENGTH = 200;

function wellFormed(items: unknown[]): { name: string; kind: VariableKind; text: string }[] {
  const kept: { name: string; kind: VariableKind; text: string }[] = [];
  for (const item of items.slice(0, MAX_VARIABLES)) {
    if (typeof item !== 'object' || item === null) continue;
    const { name, kind, text } = item as Record<string, unknown>;
    if (typeof name !== 'string' || typeof text !== 'string' || typeof kind !== 'string') continue;
    if (!KINDS.includes(kind as VariableKind) || name.length > MAX_NAME_LENGTH) continue;
    // A text a client replaces must say something: not a letter or a space alone.
    if (text.trim().length < 2 || text.length > MAX_VARIABLE_TEXT) continue;
    const snake = toSnakeCase(name);
    if (snake) kept.push({ name: snake, kind: kind as VariableKind, text });
  }
  return kept;
}
