import { z } from 'zod';

/** What a contract import answers: the variables a template of the contract needs. */
export const importContractOutput = z
  .object({
    detectedVariables: z
      .array(z.string())
      .meta({ description: 'snake_case, unique, in order of first appearance' }),
  })
  .meta({ id: 'ContractImport' });

export type ImportContractOutput = z.infer<typeof importContractOutput>;
