import { exportOutput } from '../../domain/exports/export-output.ts';
import * as deckExports from '../../domain/exports/exports.ts';
import { authedProcedure } from '../trpc.ts';
import { exportIdInput } from './export.schema.ts';

export const deleteExport = authedProcedure
  .meta({
    access: 'write',
    openapi: {
      method: 'DELETE',
      path: '/exports/{exportId}',
      tags: ['exports'],
      summary: 'Cancel an export, or delete its file',
      description:
        'Deletes the export’s file (and captions) and cancels it when it has not ended: a pending or processing export becomes `canceled` (its rendering stops within EXPORT_POLL_INTERVAL_MS, and no `export.completed` or `export.failed` follows). Answers the export as it now is, with `file: null`; a second DELETE answers the same.',
    },
  })
  .input(exportIdInput)
  .output(exportOutput)
  .mutation(({ ctx, input }) => deckExports.deleteExport(ctx, input.exportId));
