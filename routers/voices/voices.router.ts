import { router } from '../trpc.ts';
import { listVoices } from './list-voices.ts';

export const voicesRouter = router({ listVoices });
