import { router } from '../trpc.ts';
import { getBranding } from './get-branding.ts';
import { saveBranding } from './save-branding.ts';

/** Router keys are the procedures' names (file, export and key agree): `branding.saveBranding`. */
export const brandingRouter = router({ getBranding, saveBranding });
