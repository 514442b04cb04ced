import type { ContractAnalyzer } from '../../domain/ports/contract-analyzer.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import { toSnakeCase } from './detect-placeholders.ts';

/**
 * The default, with no network: the placeholders real contracts use, as the text extractor
 * found them in its worker thread (the scan never runs on the event loop).
 */
export const placeholderAnalyzer: ContractAnalyzer = {
  name: 'placeholders',
  async analyze(document) {
    return { variables: document.placeholders, analyzer: 'placeholders' };
  },
};

/**
 * An OpenAI-compatible chat-completions endpoint asked for structured output: the
 * placeholders, plus variables for filled-in values (party names, dates, amounts). On an
 * error or timeout it falls back to the placeholder analyzer and logs why.
 */
export function createAiContractAnalyzer(
  settings: { url: string; key?: string; model: string; timeoutMs: number },
  logger: Logger,
): ContractAnalyzer {
  return {
    name: 'ai',
    async analyze(document) {
      try {
        const variables = await askForVariables(settings, document.text);
        return { variables, analyzer: 'ai' };
      } catch (error) {
        logger.warn(
          { reason: (error as Error).message },
          'contract AI analysis failed; using the placeholder analyzer',
        );
        return placeholderAnalyzer.analyze(document);
      }
    },
  };
}

const INSTRUCTIONS = `You turn contracts into templates. List the variables of the contract below: every
placeholder it already has ({name}, {{name}}, [Name], <<Name>>, «Name», "Label: ____"), and every filled-in
value that would change from one deal to the next (party names, addresses, dates, amounts, terms, people).
Name each variable in snake_case, once, in order of first appearance.`;

async function askForVariables(
  settings: { url: string; key?: string; model: string; timeoutMs: number },
  text: string,
) {
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
        { role: 'user', content: text.slice(0, 200_000) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'contract_variables',
          strict: true,
          schema: {
            type: 'object',
            properties: { variables: { type: 'array', items: { type: 'string' } } },
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
  return uniqueSnakeCase(parsed.variables.filter((v): v is string => typeof v === 'string'));
}

/** At most this many variables are taken from an answer, each name at most this long. */
const MAX_VARIABLES = 500;
const MAX_NAME_LENGTH = 200;

function uniqueSnakeCase(names: string[]): string[] {
  const short = names.filter((name) => name.length <= MAX_NAME_LENGTH).slice(0, MAX_VARIABLES);
  return [...new Set(short.map(toSnakeCase).filter(Boolean))];
}
