import type { ContractAnalyzer } from '../../ports/contract-analyzer.ts';

/**
 * The default analyzer, with no network: the offline analysis (`analyzeContract`, run by the
 * text extractor in its reader thread: it never runs on the event loop) is the answer as it is.
 * A module of its own: the AI analyzer (adapters/contract-ai/contract-analyzer.ts) is imported only
 * when an endpoint is configured.
 */
export const offlineAnalyzer: ContractAnalyzer = {
  name: 'offline',
  async analyze(document) {
    return { variables: document.variables, analyzer: 'offline' };
  },
};
