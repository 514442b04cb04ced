/*
 * Why a document could not be read, as the text extractor (adapters/documents/text-extractor.ts)
 * reports it and the contract import answers it. Declared here, beside their one reader, so
 * that the domain needs nothing but types from the adapter.
 */

/** Damaged, encrypted or not a document at all. */
export class UnreadableDocument extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableDocument';
  }
}

/** Bigger inside than the limits: text, expanded size, XML elements or the worker's memory. */
export class DocumentTooLarge extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DocumentTooLarge';
  }
}

/** Reading it took longer than the time limit. */
export class DocumentTooSlow extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DocumentTooSlow';
  }
}

/**
 * No reader for it: every reader is busy and the waiting line is full (`capacity`), or the
 * organization's documents hold its share of both (`organization`): try again later.
 */
export class ExtractorBusy extends Error {
  readonly bound: 'organization' | 'capacity';
  constructor(bound: 'organization' | 'capacity' = 'capacity') {
    super(
      bound === 'organization'
        ? "the organization's share of the document readers is used"
        : 'every document reader is busy',
    );
    this.name = 'ExtractorBusy';
    this.bound = bound;
  }
}
