import { createLocalStorage } from '../adapters/storage/local-storage.ts';
import { createS3Storage } from '../adapters/storage/s3-storage.ts';
import type { LocalObjectAccess, ObjectStorage } from '../domain/ports/object-storage.ts';
import type { AppConfig } from './config.ts';
import type { Secrets } from './secrets.ts';

export function createStorage(config: AppConfig, secrets: Secrets, baseUrl: () => string): ObjectStorage {
  return config.storage.driver === 's3'
    ? createS3Storage(config.storage.s3)
    : createLocalStorage({ dataDir: config.dataDir, secret: secrets.get('storageSigning'), baseUrl });
}

export function isLocalStorage(storage: ObjectStorage): storage is ObjectStorage & LocalObjectAccess {
  return storage.driver === 'local';
}
