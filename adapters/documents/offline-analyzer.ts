import type { ContractAnalyzer } from '../../domain/ports/contract-analyzer.ts';

/**
 * The default, with no network: what the extraction worker's offline analysis found
 * (placeholders, directives, form fields, filled-in values; it never runs on the event loop).
 * A module of its own: the AI analyzer (contract-analyzer.ts) and the name rules it loads are
 * imported only when an endpoint is configured.
 */
export const offlineAnalyzer: ContractAnalyzer = {
  name: 'offline',
  async analyze(document) {
    return { variables: document.variables, analyzer: 'offline' };
  },
};
