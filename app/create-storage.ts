import { createLocalStorage } from '../adapters/storage/local-storage.ts';
import type { LocalObjectAccess, ObjectStorage } from '../domain/ports/object-storage.ts';
import type { AppConfig } from './config.ts';
import type { Secrets } from './secrets.ts';

/** The S3 adapter (and its SDK) is loaded only when configured. */
export async function createStorage(
  config: AppConfig,
  secrets: Secrets,
  baseUrl: () => string,
): Promise<ObjectStorage> {
  return config.storage.driver === 's3'
    ? (await import('../adapters/storage/s3-storage.ts')).createS3Storage(config.storage.s3)
    : createLocalStorage({ dataDir: config.dataDir, secret: secrets.get('storageSigning'), baseUrl });
}

export function isLocalStorage(storage: ObjectStorage): storage is ObjectStorage & LocalObjectAccess {
  return storage.driver === 'local';
}
