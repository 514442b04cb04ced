import { createProcessLogger } from '../adapters/logger/logger.ts';
import { startApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { releaseMemoryWhenIdle } from './memory-release.ts';
import { seedDemo } from './seed-demo.ts';
import { collectLastResort } from './v8-tuning.ts';

/**
 * `npm start` (through app/main.ts): configuration, database, demo data on first run, HTTP,
 * graceful stop. `onStop` runs after the service closed, before the process exits (tracing
 * sends what it holds).
 */
export async function serve(onStop: () => Promise<void> = async () => {}): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const logger = createProcessLogger(config, { sync: false });
  const app = await startApp(config, logger).catch((error: unknown) => {
    if (error instanceof ConfigError) {
      // A missing or unusable secret (app/secrets.ts): the same plain message as above.
      console.error(error.message);
      process.exit(1);
    }
    logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  });

  if (config.seedDemo) {
    const demo = await seedDemo(app.database.orm, app.services, config.demoPassword);
    if (demo) {
      process.stdout.write(
        [
          '',
          'Demo data created. Sign in with:',
          `  curl -i -c cookies.txt -H 'content-type: application/json' \\`,
          `    -d '{"email":"${demo.email}","password":"${demo.password}"}' ${app.url}/api/auth/login`,
          `(The password is shown only now. Create more users with: npm run admin -- create-user --help)`,
          '',
        ].join('\n'),
      );
    }
  }
  logger.info(
    { url: app.url, docs: `${app.url}/api/docs`, metrics: app.metricsUrl },
    'deck service listening',
  );
  releaseMemoryWhenIdle(app.server, collectLastResort);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      app.close().then(
        () => onStop().finally(() => process.exit(0)),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
