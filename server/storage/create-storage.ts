import type { AppConfig } from '../config.ts';
import { createLocalStorage } from './local-storage.ts';
import type { LocalObjectAccess, ObjectStorage } from './object-storage.ts';
import { createS3Storage } from './s3-storage.ts';

export function createStorage(config: AppConfig, baseUrl: () => string): ObjectStorage {
  return config.storage.driver === 's3'
    ? createS3Storage(config.storage.s3)
    : createLocalStorage({ dataDir: config.dataDir, secret: config.session.secret, baseUrl });
}

export function isLocalStorage(storage: ObjectStorage): storage is ObjectStorage & LocalObjectAccess {
  return storage.driver === 'local';
}
