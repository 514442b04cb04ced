import type { EntityManager } from '@mikro-orm/postgresql';
import type { UserRole } from '../entities/User.ts';
import type { ByteBudget } from '../server/byte-budget.ts';
import type { AppConfig } from '../server/config.ts';
import type { ContractAnalyzer } from '../server/documents/contract-analyzer.ts';
import type { TextExtractor } from '../server/documents/text-extractor.ts';
import type { Logger } from '../server/logger.ts';
import type { Mailer } from '../server/notifications/mailer.ts';
import type { SpeechEngine } from '../server/speech/speech-engine.ts';
import type { VoiceCatalog } from '../server/speech/voice-catalog.ts';
import type { ObjectStorage } from '../server/storage/object-storage.ts';

/** Long-lived parts every procedure may use; built once at start (`server/app.ts`). */
export interface Services {
  config: AppConfig;
  logger: Logger;
  /** Null when no SMTP server is configured: e-mail subscriptions are refused then. */
  mailer: Mailer | null;
  storage: ObjectStorage;
  /** Bytes of uploads held in memory by requests in flight (multipart routes reserve from it). */
  uploadBudget: ByteBudget;
  textExtractor: TextExtractor;
  /** Offline placeholder detection, or an AI endpoint (CONTRACT_AI_URL) that falls back to it. */
  contractAnalyzer: ContractAnalyzer;
  speech: SpeechEngine;
  voices: VoiceCatalog;
}

/** Who is calling, resolved from the session on each request. */
export interface Auth {
  userId: string;
  organizationId: string;
  role: UserRole;
}

/**
 * How a procedure signs a caller in or out. Transports with cookies (REST, /trpc) bind it
 * to the `session` cookie (server/sessions.ts); in-process callers have no session and get `noSession`.
 */
export interface SessionControl {
  signIn(userId: string): Promise<void>;
  signOut(): Promise<void>;
}

export interface Context {
  /** A fresh EntityManager fork for this call: its identity map is never shared. */
  em: EntityManager;
  services: Services;
  auth: Auth | null;
  session: SessionControl;
  requestId: string;
  /** The client's address, for throttling; `in-process` for scripts. */
  clientAddress: string;
  /** True only for operators' in-process calls (admin CLI, seeding); never over HTTP. */
  operator: boolean;
}

export const noSession: SessionControl = {
  async signIn() {},
  async signOut() {},
};
