import { router } from '../trpc.ts';
import { deleteIntro } from './delete-intro.ts';
import { getIntro } from './get-intro.ts';
import { saveIntro } from './save-intro.ts';

export const introRouter = router({ get: getIntro, save: saveIntro, delete: deleteIntro });
