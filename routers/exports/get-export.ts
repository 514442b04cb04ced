import { exportOutput } from '../../domain/exports/export-output.ts';
import * as deckExports from '../../domain/exports/exports.ts';
import { authedProcedure } from '../trpc.ts';
import { exportIdInput } from './export.schema.ts';

export const getExport = authedProcedure
  .meta({
    access: 'read',
    openapi: {
      method: 'GET',
      path: '/exports/{exportId}',
      tags: ['exports'],
      summary: 'An export: its status, progress and file',
      description:
        'The export with its `status`, `progress` (pages done of how many), `warnings` and, once completed, its `file`: a signed download address valid for `expiresIn` seconds (a fresh one on each GET), with its size, SHA-256, type and name; an mp4 with captions has its WebVTT file as `captionsFile`. The file is kept until `expiresAt` (EXPORT_RETENTION_DAYS), then `file: null`.',
    },
  })
  .input(exportIdInput)
  .output(exportOutput)
  .query(({ ctx, input }) => deckExports.getExport(ctx, input.exportId));
