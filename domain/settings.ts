import type { ThrottleLimits as LoginThrottleLimits } from './auth/login-throttle.ts';

/**
 * The part of the service's configuration the domain reads. `app/config.ts` reads the environment
 * and its `AppConfig` satisfies this; the domain never sees the environment itself.
 */
export interface Settings {
  loginThrottle: LoginThrottleLimits;
  uploads: {
    imageMaxBytes: number;
    kbMaxBytes: number;
    kbAllowedTypes: string[];
    kbPendingTtlHours: number;
    contractMaxBytes: number;
  };
  storage: { uploadUrlExpiresSeconds: number; downloadUrlExpiresSeconds: number };
  notifications: { allowPrivateNetworks: boolean; replay: { maxDays: number; maxEvents: number } };
  speech: { timeoutMs: number; maxAudioBytes: number };
  documents: { timeoutMs: number };
  exports: {
    perOrganization: number;
    leaseSeconds: number;
    pollIntervalMs: number;
    retentionDays: number;
    workDir: string;
  };
}
