import { router } from '../trpc.ts';
import { deleteIntro } from './delete-intro.ts';
import { getIntro } from './get-intro.ts';
import { saveIntro } from './save-intro.ts';

/** Router keys are the procedures' names (file, export and key agree): `intro.saveIntro`. */
export const introRouter = router({ getIntro, saveIntro, deleteIntro });
