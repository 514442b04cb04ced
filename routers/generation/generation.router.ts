import { router } from '../trpc.ts';
import { getGenerationStatus } from './get-generation-status.ts';
import { onProgress } from './on-progress.ts';
import { startGeneration } from './start-generation.ts';

/** Router keys are the procedures' names (file, export and key agree): `generation.startGeneration`. */
export const generationRouter = router({ startGeneration, getGenerationStatus, onProgress });
