import { importContractOutput } from '../../domain/contracts/contract-output.ts';
import * as contracts from '../../domain/contracts/contracts.ts';
import { authedProcedure } from '../trpc.ts';
import { uploadedFileInput } from '../uploaded-file.schema.ts';

export const importContract = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'POST',
      path: '/contracts/import',
      tags: ['contracts'],
      summary: 'Detect the variables of a contract (multipart part `file`: PDF or DOCX, at most 10 MB)',
      description:
        "Reads the contract's text (PDF or DOCX, in a worker with time and memory caps) and finds its variables: placeholders in every common convention, form fields, and filled-in values (parties, dates, amounts, terms). `detectedVariables` lists their snake_case names in order of first appearance; `variables` gives each one's kind, exact text and occurrences. Counts against the organization's heavy limit; a document too large to analyse is 413, too slow 422; a full queue 503, past the organization's share of the readers 429. Event `contract.imported`.",
      contentTypes: ['multipart/form-data'],
      errorResponses: [408, 413, 415, 422, 503],
    },
    heavy: true,
    multipartLimit: 'contractMaxBytes',
  })
  .input(uploadedFileInput)
  .output(importContractOutput)
  .mutation(({ ctx, input }) => contracts.importContract(ctx, input.file));
