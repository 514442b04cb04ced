import { followExport } from '../../domain/exports/export-progress.ts';
import { authedProcedure } from '../trpc.ts';
import { exportIdInput } from './export.schema.ts';

/** The export at once and after every change; it completes once the export has ended. */
export const onProgress = authedProcedure
  .meta({ access: 'read' })
  .input(exportIdInput)
  .subscription(({ ctx, input, signal }) =>
    followExport({ ...ctx, sessionTokenHash: ctx.session.tokenHash }, input.exportId, signal),
  );
