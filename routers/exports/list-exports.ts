import { z } from 'zod';
import { exportOutput } from '../../domain/exports/export-output.ts';
import * as deckExports from '../../domain/exports/exports.ts';
import { compiledOutput } from '../compiled-output.ts';
import { paginationInput } from '../shared.schema.ts';
import { authedProcedure } from '../trpc.ts';
import { exportPagination } from './export.schema.ts';

export const listExports = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/decks/{deckId}/exports',
      tags: ['exports'],
      summary: 'The deck’s exports, newest first',
      description:
        "The deck's exports, newest first, each as `GET /exports/{exportId}` answers it. Page with `limit` and `offset`, or with `after` (the previous page's `pagination.nextAfter`), which costs the same on every page.",
    },
  })
  .input(
    z.strictObject({
      deckId: z.uuid(),
      ...paginationInput,
      after: z.uuid().optional().meta({
        description:
          'The page after this export, newest first (the previous page’s `pagination.nextAfter`); not with a non-zero `offset`',
      }),
    }),
  )
  .output(compiledOutput(z.object({ exports: z.array(exportOutput), pagination: exportPagination })))
  .query(({ ctx, input: { deckId, ...page } }) => deckExports.listExports(ctx, deckId, page));
