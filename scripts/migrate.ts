/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits. */
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createProcessLogger } from '../server/logger.ts';
import { loadSecrets } from '../server/secrets.ts';

const config = loadConfig();
const logger = createProcessLogger(config, { level: 'info' });
const database = await openDatabase(config, logger, await loadSecrets(config, logger));
await database.close();
logger.info('database is up to date');
