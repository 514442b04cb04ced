import tty from 'node:tty';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { Logger } from '../../domain/ports/logger.ts';
import { redactingSerializers, redactLogFields } from './log-redaction.ts';

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
    // Why not pino's `redact`: see adapters/logger/log-redaction.ts. The formatter searches a line's
    // fields; the serializers also censor a child logger's bindings (pino formats only the root's).
    formatters: { log: redactLogFields },
    serializers: redactingSerializers,
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
  options: {
    fd?: 1 | 2;
    level?: string;
    /**
     * False for the server: JSON lines are written asynchronously, several at once when they
     * arrive faster than they are written (one write per request costs as much as the rest
     * of a small request); pino still writes what is pending when the process exits.
     */
    sync?: boolean;
  } = {},
): Logger {
  const fd = options.fd ?? 1;
  const format = chooseLogFormat({
    forced: config.logFormat,
    isTTY: tty.isatty(fd),
    production: config.isProduction,
  });
  // Pretty lines are for a person at a terminal: always synchronous (see createLogger).
  const sync = format === 'pretty' || (options.sync ?? true);
  return createLogger(options.level ?? config.logLevel, pino.destination({ dest: fd, sync }), format);
}
