import type { Logger } from '../../domain/ports/logger.ts';
import type { SpeechEngine, Voice } from '../ports/speech-engine.ts';

/**
 * The engine's voices, cached for `ttlMs`. When the provider fails, the last list is
 * served (however old) and the failure logged; with nothing cached the error goes up.
 */
export class VoiceCatalog {
  readonly #engine: SpeechEngine;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  #cached: { voices: Voice[]; at: number } | undefined;
  #loading: Promise<Voice[]> | undefined;

  constructor(engine: SpeechEngine, ttlMs: number, logger: Logger) {
    this.#engine = engine;
    this.#ttlMs = ttlMs;
    this.#logger = logger;
  }

  async list(): Promise<Voice[]> {
    if (this.#cached && Date.now() - this.#cached.at < this.#ttlMs) return this.#cached.voices;
    this.#loading ??= this.#engine
      .listVoices()
      .then((voices) => {
        this.#cached = { voices, at: Date.now() };
        return voices;
      })
      .catch((error: unknown) => {
        if (!this.#cached) throw error;
        this.#logger.warn(
          { reason: (error as Error).message },
          'voice list unavailable; serving the cached one',
        );
        return this.#cached.voices;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}
