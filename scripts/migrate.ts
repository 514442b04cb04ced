/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits. */
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/database.ts';
import { createLogger } from '../server/logger.ts';

const logger = createLogger('info');
const database = await openDatabase(loadConfig(), logger);
await database.close();
logger.info('database is up to date');
