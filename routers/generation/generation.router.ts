import { router } from '../trpc.ts';
import { getGenerationStatus } from './get-generation-status.ts';
import { startGeneration } from './start-generation.ts';

export const generationRouter = router({ start: startGeneration, status: getGenerationStatus });
