import type { Services } from '../routers/context.ts';
import type { AppConfig } from './config.ts';
import type { Logger } from './logger.ts';
import { createSmtpMailer } from './notifications/mailer.ts';

/** The adapters, chosen once from configuration; procedures reach them through the context. */
export function createServices(config: AppConfig, logger: Logger): Services {
  return {
    config,
    logger,
    mailer: config.mail.smtpUrl ? createSmtpMailer(config.mail.smtpUrl, config.mail.from) : null,
  };
}
