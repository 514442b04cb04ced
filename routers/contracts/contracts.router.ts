import { router } from '../trpc.ts';
import { importContract } from './import-contract.ts';

/** Router keys are the procedures' names: `contracts.importContract`. */
export const contractsRouter = router({ importContract });
