/**
 * The layers and their one direction (README, "Architecture"):
 *   entities/ ← domain/ ← routers/ ← rest/ ← app/ (the composition root)
 *   adapters/ implement the domain's ports (domain/ports/) and import nothing above the domain.
 * `npm run lint:layers` checks these rules; test/layering.test.ts proves each one fires.
 */
const above = (...layers) => `^(${layers.join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import cycle ties modules together: break it with a port or by moving the shared type down.',
      severity: 'error',
      from: { path: '^(app|adapters|domain|routers|rest|entities|client|migrations)/' },
      to: { circular: true },
    },
    {
      name: 'entities-import-nothing-above',
      comment: 'Entities are the bottom layer.',
      severity: 'error',
      from: { path: '^entities/' },
      to: { path: above('domain', 'routers', 'rest', 'adapters', 'app', 'scripts', 'bench', 'test') },
    },
    {
      name: 'domain-imports-entities-only',
      comment: 'The domain declares the ports it needs (domain/ports/); adapters implement them.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: above('routers', 'rest', 'adapters', 'app', 'scripts', 'bench', 'test') },
    },
    {
      name: 'domain-knows-no-transport',
      comment: 'domain/ knows nothing of HTTP or tRPC: raise a DomainError and return plain values.',
      severity: 'error',
      from: { path: '^domain/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        path: 'node_modules/(koa|@koa/|@trpc/|trpc-to-openapi)',
      },
    },
    {
      name: 'contract-analysis-is-pure',
      comment:
        'The contract analysis is pure functions over an extracted document: no files, threads or document readers (those are adapters/documents/).',
      severity: 'error',
      from: { path: '^domain/contracts/analysis/' },
      to: {
        path: [
          '^(node:)?(fs|worker_threads|child_process|net|http|https|zlib)(/|$)',
          'node_modules/(pdfjs-dist|officeparser|@xmldom/|fflate)',
        ],
      },
    },
    {
      name: 'routers-import-domain-only',
      comment: 'A procedure is transport-neutral: no Koa, no REST facade, no adapters.',
      severity: 'error',
      from: { path: '^routers/' },
      to: {
        path: [above('rest', 'adapters', 'app', 'scripts', 'bench', 'test'), 'node_modules/(koa|@koa/)'],
      },
    },
    {
      name: 'rest-imports-no-composition',
      comment: 'The facade gets its adapters from the composition root, as arguments.',
      severity: 'error',
      from: { path: '^rest/' },
      to: { path: above('adapters', 'app', 'scripts', 'bench', 'test') },
    },
    {
      name: 'adapters-import-domain-only',
      comment:
        'An adapter implements a port of the domain and knows nothing of the transport or the composition.',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: above('routers', 'rest', 'app', 'scripts', 'bench', 'test') },
    },
    {
      name: 'no-trpc-internals',
      comment: "tRPC's unstable core is not its public API.",
      severity: 'error',
      from: {},
      to: { path: 'unstable-core-do-not-import' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API yet: swc parses the sources.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    // The client package's build output (its declarations name tRPC's types as @trpc/client's do).
    exclude: { path: '^client/(dist|build)/' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
