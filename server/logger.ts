import tty from 'node:tty';
import pino from 'pino';
import pretty from 'pino-pretty';

export type Logger = pino.Logger;
export type LogFormat = 'json' | 'pretty';

/**
 * Readable lines for a person at a terminal during development; JSON for everything that
 * reads logs as data (pipes, files, collectors) and in production. LOG_FORMAT forces either.
 */
export function chooseLogFormat(options: {
  forced?: LogFormat | undefined;
  isTTY: boolean;
  production: boolean;
}): LogFormat {
  if (options.forced) return options.forced;
  return options.isTTY && !options.production ? 'pretty' : 'json';
}

/**
 * Structured logs, as JSON or pretty-printed (pino-pretty, in-process and synchronous, so the
 * last line before an exit is not lost). Redaction is a second line of defence, applied before
 * either format: request logging already picks only method, path, status and duration, never
 * headers or bodies.
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const options: pino.LoggerOptions = {
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
  };
  if (format === 'pretty') {
    return pino(
      options,
      pretty({
        destination: destination ?? 1,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
      }),
    );
  }
  return pino(options, destination);
}

/**
 * The logger of a command run by a person or a supervisor: to stdout (or stderr, for commands
 * whose stdout is their answer), in the format `chooseLogFormat` picks for that stream.
 */
export function createProcessLogger(
  config: { logLevel: string; logFormat?: LogFormat | undefined; isProduction: boolean },
  options: { fd?: 1 | 2; level?: string } = {},
): Logger {
  const fd = options.fd ?? 1;
  const format = chooseLogFormat({
    forced: config.logFormat,
    isTTY: tty.isatty(fd),
    production: config.isProduction,
  });
  return createLogger(options.level ?? config.logLevel, pino.destination({ dest: fd, sync: true }), format);
}
