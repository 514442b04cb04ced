import { configDefaults, defineConfig } from 'vitest/config';
import { NEEDS_DEBIAN } from './test/helpers/debian-tests.ts';

/** Measures the service's event loop: run on its own, after the rest (`npm test`), so that no other test file competes for the CPU. */
const ALONE = ['test/input-cost.test.ts', 'test/exports-loop.test.ts'];

export default defineConfig({
  test: {
    // One PostgreSQL server for the run; each test file gets its own database on it.
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          include: ['test/**/*.test.ts'],
          // test/rest-client/ is a separate project (its own node_modules, whose packages ship their
          // own tests): test/client-packages.test.ts and test/generated-clients.test.ts use it.
          exclude: [...configDefaults.exclude, 'test/rest-client/**', ...ALONE],
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE } },
      // `npm run test:quick`: what needs nothing but `npm install` (and is not timed alone).
      {
        extends: true,
        test: {
          name: 'quick',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/rest-client/**', ...ALONE, ...Object.keys(NEEDS_DEBIAN)],
        },
      },
    ],
  },
});
