import { text } from './shared.schema.ts';

/** An object-storage key as it appears in requests: `org/<organizationId>/…`. */
export const objectKey = text()
  .trim()
  .min(1)
  .max(1024)
  .regex(/^org\/[0-9a-f-]{36}\/[^\s]+$/, 'must be an object key of the form org/<organizationId>/…')
  .meta({ description: 'Object-storage key of one of the organization’s objects (org/<organizationId>/…)' });
