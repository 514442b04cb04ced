import { z } from 'zod';
import { ACTION_CONFIG_STATUSES } from '../../entities/ActionConfig.ts';
import { text } from '../shared.schema.ts';

export const actionConfigIdInput = z.object({ actionConfigId: z.uuid() });

/** A JSON object (not an array or a scalar) whose strings PostgreSQL can store. */
const requirementsJson = z
  .record(z.string(), z.unknown())
  .refine((value) => !JSON.stringify(value).includes('\\u0000'), 'must not contain the NUL character')
  .refine((value) => JSON.stringify(value).length <= 64 * 1024, 'must be at most 64 kB as JSON')
  .meta({ description: 'Free-form requirements of the action, as a JSON object' });

export const actionConfigFields = {
  actionType: text()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a lower-case word such as loi')
    .meta({ example: 'loi' }),
  templateMarkdown: text().min(1),
  disclosuresMarkdown: text().nullable(),
  requirementsJson: requirementsJson.nullable(),
  repName: text().trim().max(200).nullable(),
  status: z.enum(ACTION_CONFIG_STATUSES),
};
