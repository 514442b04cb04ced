/**
 * The test files that drive a program from a Debian package (scripts/install-test-packages.sh
 * installs them for `npm test`), with those packages. `npm run test:quick` (vitest project
 * `quick`) runs every other test file: they need nothing but `npm install` (the embedded
 * PostgreSQL, ffmpeg and espeak-ng come as npm packages). test/debian-tests.test.ts keeps this
 * list true: a test file that uses one of those programs and is not listed here fails it.
 */
export const NEEDS_DEBIAN: Record<string, string[]> = {
  'test/client-packages.test.ts': ['(test/rest-client: a second npm install, by the pretest step)'],
  'test/cluster.test.ts': [
    'haproxy',
    'swift',
    'swift-proxy',
    'swift-account',
    'swift-container',
    'swift-object',
  ],
  'test/contract-drafts.test.ts': ['libreoffice-writer-nogui'],
  'test/contract-extraction.test.ts': ['libreoffice-writer-nogui'],
  'test/contract-values-http.test.ts': ['libreoffice-writer-nogui'],
  'test/cross-site-browser.test.ts': ['chromium'],
  'test/docs-page.test.ts': ['chromium'],
  'test/export-documents.test.ts': ['poppler-utils', 'qpdf', 'libreoffice-impress-nogui'],
  'test/export-video.test.ts': ['ffmpeg'],
  'test/exports-complete.test.ts': ['poppler-utils'],
  'test/generated-clients.test.ts': ['(test/rest-client: a second npm install, by the pretest step)'],
  'test/metrics.test.ts': ['prometheus'],
  'test/s3-storage.test.ts': ['swift', 'swift-proxy', 'swift-account', 'swift-container', 'swift-object'],
  'test/tracing.test.ts': ['swift', 'swift-proxy', 'swift-account', 'swift-container', 'swift-object'],
};
