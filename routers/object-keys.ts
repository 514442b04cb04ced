import type { z } from 'zod';
import type { Auth } from './context.ts';
import { badRequest, type Issue } from './errors.ts';
import { text } from './shared.schema.ts';

/** An object-storage key as it appears in requests: `org/<organizationId>/…`. */
export const objectKey = text()
  .trim()
  .min(1)
  .max(1024)
  .regex(/^org\/[0-9a-f-]{36}\/[^\s]+$/, 'must be an object key of the form org/<organizationId>/…')
  .meta({ description: 'Object-storage key of one of the organization’s objects (org/<organizationId>/…)' });

/**
 * Object keys in a request must name the caller's own objects: anything outside the
 * organization's namespace is a 400 with an issue on that field. (Whether the object
 * exists is checked here too once object storage is in place.)
 */
export function checkOwnObjectKeys(auth: Auth, fields: Record<string, string | null | undefined>): void {
  const prefix = `org/${auth.organizationId}/`;
  const issues: Issue[] = [];
  for (const [field, key] of Object.entries(fields)) {
    if (key && !key.startsWith(prefix)) {
      issues.push({ path: field.split('.'), message: 'must name an object of your own organization' });
    }
  }
  if (issues.length > 0) throw badRequest('The request names objects that are not yours', issues);
}

export type ObjectKey = z.infer<typeof objectKey>;
