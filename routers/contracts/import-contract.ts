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
      contentTypes: ['multipart/form-data'],
      errorResponses: [408, 413, 415, 422, 503],
    },
    heavy: true,
    multipartLimit: 'contractMaxBytes',
  })
  .input(uploadedFileInput)
  .output(importContractOutput)
  .mutation(({ ctx, input }) => contracts.importContract(ctx, input.file));
