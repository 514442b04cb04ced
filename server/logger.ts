import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs. Redaction is a second line of defence: request logging already
 * picks only method, path, status and duration, never headers or bodies.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'deck-service' },
      redact: {
        paths: [
          'password',
          '*.password',
          'passwordHash',
          '*.passwordHash',
          'secret',
          '*.secret',
          'cookie',
          '*.cookie',
          'headers.cookie',
          'headers.authorization',
          '*.headers.cookie',
          '*.headers.authorization',
          'databaseUrl',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
