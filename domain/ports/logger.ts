import type pino from 'pino';

/** Structured logging (pino's interface; adapters/logger/ builds the instance). */
export type Logger = pino.Logger;
