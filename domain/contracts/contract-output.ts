import { z } from 'zod';
import { type ContractVariable, VARIABLE_KINDS } from './contract-variable.ts';

export const contractVariable = z
  .object({
    name: z.string().meta({ description: 'snake_case, from the placeholder or the context of the value' }),
    kind: z.enum(VARIABLE_KINDS).meta({
      description:
        'placeholder: a blank the document marks; value: a filled-in value (a party, a date, an amount…); condition / list: the subject of a template directive ({IF x}, {FOR d IN items})',
    }),
    text: z.string().meta({
      description:
        "Exactly as it stands in the document's text (white space inside a line collapsed to one space), so that a client can replace it",
    }),
    occurrences: z.int().min(1).meta({ description: 'How many times `text` stands in the document' }),
  })
  .meta({ id: 'ContractVariable' }) satisfies z.ZodType<ContractVariable>;

/** What a contract import answers: the variables a template of the contract needs. */
export const importContractOutput = z
  .object({
    detectedVariables: z
      .array(z.string())
      .meta({ description: 'The variables’ names: snake_case, unique, in order of first appearance' }),
    variables: z.array(contractVariable).meta({
      description:
        'Each variable with where it stands: one entry per text, in order of first appearance (a placeholder spelled two ways is two entries under one name)',
    }),
  })
  .meta({ id: 'ContractImport' });

export type ImportContractOutput = z.infer<typeof importContractOutput>;
