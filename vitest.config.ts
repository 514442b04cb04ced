import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/rest-client/ is a separate project (its own node_modules, whose packages ship their
    // own tests): its one check is run by test/client-packages.test.ts.
    exclude: [...configDefaults.exclude, 'test/rest-client/**'],
    // One PostgreSQL server for the run; each test file gets its own database on it.
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
