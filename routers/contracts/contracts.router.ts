import { router } from '../trpc.ts';
import { importContract } from './import-contract.ts';

export const contractsRouter = router({ import: importContract });
