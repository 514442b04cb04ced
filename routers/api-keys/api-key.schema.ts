import { z } from 'zod';
import { API_KEY_ACCESS } from '../../entities/ApiKey.ts';
import { text, timestamp } from '../shared.schema.ts';

export const API_KEY_NAME_MAX = 200;

/** The fields of a new key, shared by the route and the admin CLI. */
export const apiKeyFields = {
  name: text().trim().min(1).max(API_KEY_NAME_MAX),
  access: z.enum(API_KEY_ACCESS),
  expiresAt: timestamp()
    .optional()
    .meta({ description: 'When the key stops working; must be in the future' }),
};

export const apiKeyIdInput = z.object({ apiKeyId: z.uuid() });
