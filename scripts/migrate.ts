/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits. */

import { createProcessLogger } from '../adapters/logger/logger.ts';
import { loadConfig } from '../app/config.ts';
import { openDatabase } from '../app/database.ts';
import { loadSecrets } from '../app/secrets.ts';

const config = loadConfig();
const logger = createProcessLogger(config, { level: 'info' });
const database = await openDatabase(config, logger, await loadSecrets(config, logger));
await database.close();
logger.info('database is up to date');
