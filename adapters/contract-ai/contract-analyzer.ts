import {
  MODEL_TEXT_CHARS,
  mergeChecked,
  wellFormed,
} from '../../domain/contracts/analysis/model-variables.ts';
import { offlineAnalyzer } from '../../domain/contracts/analysis/offline-analyzer.ts';
import { VARIABLE_KINDS } from '../../domain/contracts/contract-variable.ts';
import type { ContractAnalyzer } from '../../domain/ports/contract-analyzer.ts';
import type { Logger } from '../../domain/ports/logger.ts';

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
 * first (the domain's rules: domain/contracts/analysis/model-variables.ts). On an error or timeout the offline analysis answers alone, and the log says why.
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
                    kind: { type: 'string', enum: VARIABLE_KINDS },
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
