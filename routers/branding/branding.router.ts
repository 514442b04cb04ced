import { router } from '../trpc.ts';
import { getBranding } from './get-branding.ts';
import { saveBranding } from './save-branding.ts';

export const brandingRouter = router({ get: getBranding, save: saveBranding });
