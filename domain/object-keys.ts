import type { Auth } from './context.ts';
import { badRequest, type Issue } from './errors.ts';
import { isSafeKey, type ObjectStorage } from './ports/object-storage.ts';
import type { Services } from './services.ts';

/*
 * Helpers for object-storage keys, shared by every resource that stores files (images,
 * knowledge base, narration audio, branding, slides): where an object lives, and whether a
 * key a caller names is one of theirs. The request-side schema of a key is in
 * routers/object-key.schema.ts.
 */

/**
 * Object keys in a request must name existing objects of the caller's own organization:
 * a key outside its namespace, or one with no object behind it, is a 400 on that field
 * (the same answer for both, so other organizations' keys reveal nothing).
 */
export async function checkOwnObjectKeys(
  auth: Auth,
  storage: ObjectStorage,
  fields: Record<string, string | null | undefined>,
): Promise<void> {
  const prefix = `org/${auth.organizationId}/`;
  const issues: Issue[] = [];
  for (const [field, key] of Object.entries(fields)) {
    if (!key) continue;
    if (!key.startsWith(prefix) || !isSafeKey(key) || !(await storage.head(key))) {
      issues.push({ path: field.split('.'), message: 'must name an object of your own organization' });
    }
  }
  if (issues.length > 0) throw badRequest('The request names objects that are not yours', issues);
}

/** `org/<organizationId>/<kind>/<id>/<file name made safe>`: every object lives in its organization's namespace. */
export function objectKeyFor(
  organizationId: string,
  kind: 'images' | 'kb' | 'audio' | 'exports',
  id: string,
  filename: string,
): string {
  return `org/${organizationId}/${kind}/${id}/${safeFilename(filename)}`;
}

/** A file name reduced to safe characters, its extension kept, at most 100 characters. */
export function safeFilename(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-100);
  return cleaned || 'file';
}

/**
 * A signed address that downloads `key` for the configured time, or null without a key.
 * `contentType`: what the service knows the object to be (see `signedDownloadUrl`).
 */
export async function downloadUrlFor(
  services: Services,
  key: string | null | undefined,
  contentType?: string,
): Promise<string | null> {
  return key
    ? services.storage.signedDownloadUrl(
        key,
        services.settings.storage.downloadUrlExpiresSeconds,
        contentType,
      )
    : null;
}
