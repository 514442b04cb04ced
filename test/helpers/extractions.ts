import { expect } from 'vitest';
import type { TextExtractor } from '../../domain/ports/text-extractor.ts';
import type { TestApp } from './test-app.ts';

/**
 * Counts the documents handed to the app's text extractor, forwarding each unchanged: the
 * test's way to know that an import is being read before it sends the next one.
 */
export function countExtractions(app: TestApp) {
  const services = app.app.services as { textExtractor: TextExtractor };
  const extractor = services.textExtractor;
  let started = 0;
  services.textExtractor = {
    extractText(bytes, owner) {
      started += 1;
      return extractor.extractText(bytes, owner);
    },
  };
  return {
    /** How many documents were handed to the extractor. */
    count: () => started,
    /** How many wait in the extractor's line. */
    queued: () => extractor.queued?.(),
    reached: (count: number) => expect.poll(() => started, { timeout: 10_000 }).toBeGreaterThanOrEqual(count),
    restore: () => {
      services.textExtractor = extractor;
    },
  };
}
