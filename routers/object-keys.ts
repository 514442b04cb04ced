import { text } from './shared.schema.ts';

/** The key rules and addresses live in the domain; routes that have not moved yet import them from here. */
export {
  checkOwnObjectKeys,
  downloadUrlFor,
  objectKeyFor,
  safeFilename,
} from '../domain/storage/object-keys.ts';

/** An object-storage key as it appears in requests: `org/<organizationId>/…`. */
export const objectKey = text()
  .trim()
  .min(1)
  .max(1024)
  .regex(/^org\/[0-9a-f-]{36}\/[^\s]+$/, 'must be an object key of the form org/<organizationId>/…')
  .meta({ description: 'Object-storage key of one of the organization’s objects (org/<organizationId>/…)' });
