import { z } from 'zod';
import { USER_ROLES } from '../../entities/User.ts';
import { text } from '../shared.schema.ts';

export { emailAddress, password } from '../auth/auth.schema.ts';

export const userName = text().trim().min(1).max(200);
export const userRole = z.enum(USER_ROLES);
export const userIdInput = z.strictObject({ userId: z.uuid() });
