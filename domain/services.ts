import type { ContractAnalyzer } from './ports/contract-analyzer.ts';
import type { DeckExporter } from './ports/deck-exporter.ts';
import type { Logger } from './ports/logger.ts';
import type { Mailer } from './ports/mailer.ts';
import type { Notifier } from './ports/notifier.ts';
import type { ObjectStorage } from './ports/object-storage.ts';
import type { SecretBox } from './ports/secret-box.ts';
import type { SpeechEngine } from './ports/speech-engine.ts';
import type { TextExtractor } from './ports/text-extractor.ts';
import type { Settings } from './settings.ts';
import type { VoiceCatalog } from './voices/voice-catalog.ts';

/**
 * The long-lived parts an operation of the domain may use: its settings and the ports it
 * declares (domain/ports/), implemented by adapters/ and chosen once at start (app/services.ts).
 */
export interface Services {
  settings: Settings;
  logger: Logger;
  /** Null when no SMTP server is configured: e-mail subscriptions are refused then. */
  mailer: Mailer | null;
  storage: ObjectStorage;
  /** Seals and opens the secrets the service stores and must read back (webhook signing secrets). */
  secretBox: SecretBox;
  textExtractor: TextExtractor;
  /** Offline placeholder detection, or an AI endpoint (CONTRACT_AI_URL) that falls back to it. */
  contractAnalyzer: ContractAnalyzer;
  speech: SpeechEngine;
  voices: VoiceCatalog;
  /** Sends one message through a subscription's channel (the delivery worker, a test message). */
  notifier: Notifier;
  /** Renders a deck's snapshot to PowerPoint, PDF or video, off the event loop (the export worker). */
  exporter: DeckExporter;
}
