import type { EntityManager } from '@mikro-orm/postgresql';
import { createWorkerTextExtractor } from '../adapters/documents/text-extractor.ts';
import { createDeckExporter } from '../adapters/export/deck-exporter.ts';
import { createNotifier } from '../adapters/notifications/notifier.ts';
import { createSecretBox } from '../adapters/secret-box.ts';
import { createElevenLabsEngine } from '../adapters/speech/elevenlabs-speech.ts';
import { createLocalSpeechEngine } from '../adapters/speech/local-speech.ts';
import { offlineAnalyzer } from '../domain/contracts/analysis/offline-analyzer.ts';
import type { Logger } from '../domain/ports/logger.ts';
import { preparedQueries } from '../domain/prepared-statements.ts';
import type { Services } from '../domain/services.ts';
import { VoiceCatalog } from '../domain/voices/voice-catalog.ts';
import { createBodyFingerprint } from '../rest/body-fingerprint.ts';
import type { Edge } from '../rest/edge.ts';
import { createRateLimiter } from '../rest/rate-limit.ts';
import { UploadBudget } from '../rest/upload-budget.ts';
import type { AppConfig } from './config.ts';
import { createStorage } from './create-storage.ts';
import type { Secrets } from './secrets.ts';

/**
 * The adapters behind the domain's ports, chosen once from configuration. An adapter that is not
 * configured is not loaded either (the S3 SDK with local storage, nodemailer without SMTP):
 * `docs/performance.md`, "bench:memory".
 */
export async function createServices(
  config: AppConfig,
  logger: Logger,
  secrets: Secrets,
  listeningUrl?: () => string,
): Promise<Services> {
  // Signed local-storage addresses point at PUBLIC_URL, or at where this process listens.
  const baseUrl = () => config.publicUrl ?? listeningUrl?.() ?? `http://localhost:${config.port}`;
  const speech = config.speech.elevenLabs
    ? createElevenLabsEngine({ ...config.speech.elevenLabs, concurrency: config.speech.concurrency })
    : createLocalSpeechEngine({
        concurrency: config.speech.concurrency,
        timeoutMs: config.speech.timeoutMs,
        previewUrl: (voiceId) => `${baseUrl()}/api/voices/${encodeURIComponent(voiceId)}/preview`,
      });
  const secretBox = createSecretBox(secrets.get('encryption'), config.previousEncryptionKeys);
  const mailer = config.mail.smtpUrl
    ? (await import('../adapters/notifications/mailer.ts')).createSmtpMailer(
        config.mail.smtpUrl,
        config.mail.from,
      )
    : null;
  return {
    settings: config,
    logger,
    speech,
    voices: new VoiceCatalog(speech, config.speech.voicesCacheMs, logger),
    mailer,
    storage: await createStorage(config, secrets, baseUrl),
    secretBox,
    textExtractor: createWorkerTextExtractor(config.documents),
    contractAnalyzer: config.contractAi
      ? (await import('../adapters/contract-ai/contract-analyzer.ts')).createAiContractAnalyzer(
          config.contractAi,
          logger,
        )
      : offlineAnalyzer,
    notifier: createNotifier({ secretBox, mailer, logger, ...config.notifications }),
    exporter: createDeckExporter(config.exports),
  };
}

/** The facade's own per-request limits (rest/edge.ts). */
export function createEdge(
  config: AppConfig,
  secrets: Secrets,
  shared: { em: EntityManager; logger: Logger },
): Edge {
  return {
    settings: config,
    rateLimiter: createRateLimiter(config.rateLimits, {
      queries: preparedQueries.bind(null, shared.em),
      logger: shared.logger,
    }),
    uploadBudget: new UploadBudget({
      capacity: config.uploads.memoryBudgetBytes,
      perOrganization: config.uploads.memoryPerOrganizationBytes,
      perCaller: config.uploads.memoryPerCallerBytes,
    }),
    bodyFingerprint: createBodyFingerprint(secrets.get('encryption')),
  };
}
