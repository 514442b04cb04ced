/**
 * The benchmark corpus of contract import (test/fixtures/contracts-corpus) is well formed: each
 * document has its publisher, source address and licence, its DOCX is committed, and every
 * expected variable's `text` stands in the document's text. The text is read by the corpus's
 * own DOCX reader (docx-text.ts, the service's text format), not by the service, so that the
 * expectations do not depend on the code they measure. No PDF conversion here: it stays fast.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DERIVED } from './fixtures/contracts-corpus/derive.ts';
import { docxText } from './fixtures/contracts-corpus/docx-text.ts';
import { type CorpusDocument, loadManifest, splitOf } from './fixtures/contracts-corpus/manifest.ts';

const corpus = path.join(import.meta.dirname, 'fixtures/contracts-corpus');
const { documents } = loadManifest(corpus);

describe('contracts corpus', () => {
  it('has at least 40 templates and 150 filled-in or signed contracts from at least eight publishers, some held out', () => {
    expect(documents.filter((d) => d.kind === 'template').length).toBeGreaterThanOrEqual(40);
    const contracts = documents.filter((d) => d.kind !== 'template');
    expect(contracts.length).toBeGreaterThanOrEqual(150);
    expect(new Set(contracts.map((d) => d.publisher)).size).toBeGreaterThanOrEqual(8);
    for (const kind of ['filled', 'signed'] as const) {
      const heldOut = contracts.filter((d) => d.kind === kind && d.set === 'held-out');
      expect(heldOut.length, kind).toBeGreaterThanOrEqual(20);
    }
    expect(new Set(documents.map((d) => d.id)).size).toBe(documents.length);
  });

  it('keeps out the documents the service is judged on', () => {
    for (const document of documents) {
      expect(document.source, document.id).not.toMatch(/open-agreements|commonpaper|bonterms/i);
      expect(document.publisher, document.id).not.toMatch(/common paper|bonterms/i);
    }
  });

  it('holds the derived documents exactly as derive.ts writes them (no hand edits)', () => {
    const derived = documents.filter((d) => d.filled_by === 'derive.ts');
    expect(derived.map((d) => d.id).sort()).toEqual(DERIVED.map((d) => d.id).sort());
    for (const rule of DERIVED) {
      const { text, expected } = rule.make();
      expect(readFileSync(path.join(corpus, 'sources', `${rule.id}.md`), 'utf8'), rule.id).toBe(text);
      const document = documents.find((d) => d.id === rule.id)!;
      expect(document.kind === 'signed' ? null : document.expected, rule.id).toEqual(expected);
    }
  });

  it('gives each draft both its values and the placeholders it still has, and each filled form its set by splitOf of the form', () => {
    const drafts = documents.filter((d) => d.conventions?.includes('draft: values and placeholders'));
    expect(drafts.length).toBeGreaterThan(0);
    for (const draft of drafts) {
      const expected = draft.kind === 'signed' ? [] : draft.expected;
      expect(expected.filter((e) => 'type' in e).length, draft.id).toBeGreaterThan(0);
      expect(expected.filter((e) => 'kind' in e && !e.optional).length, draft.id).toBeGreaterThan(0);
    }
    // Every fill of one form in the same set: a held-out form is one the rules never saw.
    for (const rule of DERIVED.filter((r) => r.set !== undefined)) {
      expect(rule.set, rule.id).toBe(splitOf(rule.id.replace(/-(?:filled|draft)-\d+$/, '')));
    }
  });

  it.each(documents.map((d) => [d.id, d] as [string, CorpusDocument]))(
    '%s: its DOCX holds every expected text',
    (_id, document) => {
      const file = path.join(corpus, 'docx', `${document.id}.docx`);
      expect(existsSync(file), `${file} (run node test/fixtures/contracts-corpus/build.ts)`).toBe(true);
      expect(existsSync(path.join(corpus, 'sources', `${document.id}.${document.format}`))).toBe(true);
      const text = docxText(readFileSync(file));
      if (document.kind === 'signed') {
        // People's labels are normalized, not spans: each party's first word and the date's year stand in it.
        const upper = text.toUpperCase();
        const absent = document.labels.parties.filter((p) => !upper.includes(p.split(' ')[0]!.toUpperCase()));
        expect(absent).toEqual([]);
        if (document.labels.date) expect(text).toContain(document.labels.date.slice(0, 4));
        return;
      }
      expect(document.expected.length).toBeGreaterThan(0);
      const texts = document.expected.flatMap((e) => [e.text, ...('also' in e ? (e.also ?? []) : [])]);
      expect(texts.filter((t) => !text.includes(t))).toEqual([]);
      expect(new Set(texts).size, 'each text once').toBe(texts.length);
    },
  );
});
