import { router } from '../trpc.ts';
import { createExport } from './create-export.ts';
import { deleteExport } from './delete-export.ts';
import { getExport } from './get-export.ts';
import { listExports } from './list-exports.ts';
import { onProgress } from './on-progress.ts';

/** Router keys are the procedures' names (file, export and key agree): `exports.createExport`. */
export const exportsRouter = router({ createExport, getExport, listExports, deleteExport, onProgress });
