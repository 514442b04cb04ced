import { z } from 'zod';
import { paginationOutput } from '../shared.schema.ts';

export const exportIdInput = z.strictObject({ exportId: z.uuid() });

/** A page of a deck's exports: keyset pages like the event log's (`after`, `nextAfter`). */
export const exportPagination = paginationOutput
  .extend({
    nextAfter: z.uuid().nullable().meta({
      description: 'Pass as `after` for the next page; null on the last page',
    }),
  })
  .meta({ id: 'ExportPagination' });
