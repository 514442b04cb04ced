import { type BodyFingerprint, createBodyFingerprint } from './body-fingerprint.ts';
import type { AppConfig } from './config.ts';
import type { ContractAnalyzer } from './documents/contract-analyzer.ts';
import { createAiContractAnalyzer, placeholderAnalyzer } from './documents/contract-analyzer.ts';
import type { TextExtractor } from './documents/text-extractor.ts';
import { createWorkerTextExtractor } from './documents/text-extractor.ts';
import type { Logger } from './logger.ts';
import type { Mailer } from './notifications/mailer.ts';
import { createSmtpMailer } from './notifications/mailer.ts';
import { createNotifier, type Notifier } from './notifications/notifier.ts';
import { createRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { type SecretBox, secretBoxFor } from './secret-box.ts';
import type { Secrets } from './secrets.ts';
import { createElevenLabsEngine } from './speech/elevenlabs-speech.ts';
import { createLocalSpeechEngine } from './speech/local-speech.ts';
import type { SpeechEngine } from './speech/speech-engine.ts';
import { VoiceCatalog } from './speech/voice-catalog.ts';
import { createStorage } from './storage/create-storage.ts';
import type { ObjectStorage } from './storage/object-storage.ts';
import { UploadBudget } from './upload-budget.ts';

/** Long-lived parts every procedure may use; built once at start (`server/app.ts`). */
export interface Services {
  config: AppConfig;
  logger: Logger;
  /** Null when no SMTP server is configured: e-mail subscriptions are refused then. */
  mailer: Mailer | null;
  storage: ObjectStorage;
  /** Seals and opens the secrets the service stores and must read back (webhook signing secrets). */
  secretBox: SecretBox;
  /** Bytes of uploads held in memory by requests in flight, in all and per organization and caller. */
  uploadBudget: UploadBudget;
  textExtractor: TextExtractor;
  /** Offline placeholder detection, or an AI endpoint (CONTRACT_AI_URL) that falls back to it. */
  contractAnalyzer: ContractAnalyzer;
  speech: SpeechEngine;
  voices: VoiceCatalog;
  /** Sends one message through a subscription's channel (the delivery worker, a test message). */
  notifier: Notifier;
  /** The per-minute request limits of this instance (RATE_LIMIT_PER_MINUTE, HEAVY_LIMIT_PER_MINUTE). */
  rateLimiter: RateLimiter;
  /** Keyed fingerprint of a request's input, for Idempotency-Key comparisons. */
  bodyFingerprint: BodyFingerprint;
}

/** The adapters, chosen once from configuration; procedures reach them through the context. */
export function createServices(
  config: AppConfig,
  logger: Logger,
  secrets: Secrets,
  listeningUrl?: () => string,
): Services {
  // Signed local-storage addresses point at PUBLIC_URL, or at where this process listens.
  const baseUrl = () => config.publicUrl ?? listeningUrl?.() ?? `http://localhost:${config.port}`;
  const speech = config.speech.elevenLabs
    ? createElevenLabsEngine(config.speech.elevenLabs)
    : createLocalSpeechEngine({
        concurrency: config.speech.concurrency,
        previewUrl: (voiceId) => `${baseUrl()}/api/voices/${encodeURIComponent(voiceId)}/preview`,
      });
  const services: Omit<Services, 'notifier'> = {
    speech,
    voices: new VoiceCatalog(speech, config.speech.voicesCacheMs, logger),
    config,
    logger,
    mailer: config.mail.smtpUrl ? createSmtpMailer(config.mail.smtpUrl, config.mail.from) : null,
    storage: createStorage(config, secrets, baseUrl),
    secretBox: secretBoxFor(config, secrets),
    uploadBudget: new UploadBudget({
      capacity: config.uploads.memoryBudgetBytes,
      perOrganization: config.uploads.memoryPerOrganizationBytes,
      perCaller: config.uploads.memoryPerCallerBytes,
    }),
    rateLimiter: createRateLimiter(config.rateLimits),
    bodyFingerprint: createBodyFingerprint(secrets.get('encryption')),
    textExtractor: createWorkerTextExtractor(config.documents),
    contractAnalyzer: config.contractAi
      ? createAiContractAnalyzer(config.contractAi, logger)
      : placeholderAnalyzer,
  };
  return { ...services, notifier: createNotifier(services) };
}
