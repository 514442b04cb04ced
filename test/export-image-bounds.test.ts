import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../adapters/export/layout/image.ts';
import { layoutDeck } from '../adapters/export/layout.ts';
import type { DeckSnapshot } from '../domain/ports/deck-exporter.ts';
import { png } from './helpers/files.ts';

/**
 * Issue 39: a hero image that is a decompression bomb. The one layout (adapters/export/layout.ts)
 * checks every image once for the three renderers: its header's size before anything is decoded
 * (MAX_IMAGE_PIXELS), then that it unpacks to what the header says.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'deck-export-images-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A deck of one slide whose hero image is `bytes`. */
async function deckWithHero(name: string, bytes: Buffer): Promise<DeckSnapshot> {
  const heroImagePath = path.join(dir, name);
  await writeFile(heroImagePath, bytes);
  return {
    deckName: 'Images',
    branding: null,
    logoPath: null,
    intro: null,
    slides: [
      {
        id: '1',
        slideId: 'slide-1',
        title: 'Hero',
        bullets: [],
        slideContext: null,
        narrationScript: null,
        slideType: 'standard',
        productData: null,
        heroImagePath,
        audioPath: null,
      },
    ],
    faqs: [],
  };
}

const images = (snapshot: DeckSnapshot) =>
  layoutDeck(snapshot).pages.flatMap((page) => page.boxes.filter((box) => box.kind === 'image'));

/** A PNG whose header says `width`×`height` and whose data is one small deflated run of zeros. */
function pngBomb(width: number, height: number): Buffer {
  const full = png(1, 1);
  const header = Buffer.from(full.subarray(0, 33));
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  // The IHDR's CRC covers its type and data: written again so that the header itself is valid.
  header.writeUInt32BE(crc32(header.subarray(12, 29)), 29);
  const idat = deflateSync(Buffer.alloc(1 << 20));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(idat.length);
  return Buffer.concat([header, length, Buffer.from('IDAT'), idat, Buffer.alloc(4), full.subarray(-12)]);
}

describe('a hero image past the pixels the layout draws', () => {
  it(`draws one of ${MAX_IMAGE_PIXELS} pixels, leaves out one of a row more, naming it`, async () => {
    const side = Math.sqrt(MAX_IMAGE_PIXELS);
    const atLimit = await deckWithHero('at.png', png(side, side));
    expect(images(atLimit)).toHaveLength(1);
    expect(layoutDeck(atLimit).warnings).toEqual([]);

    const past = await deckWithHero('past.png', png(side, side + 1));
    expect(images(past)).toEqual([]);
    expect(layoutDeck(past).warnings).toEqual([
      `slide-1: the hero image is too large to draw (${side}×${side + 1} pixels): left out`,
    ]);
  }, 60_000);

  it('leaves out a 40,000 × 40,000 PNG of a few kilobytes without unpacking it', async () => {
    const bomb = pngBomb(40_000, 40_000);
    expect(bomb.length).toBeLessThan(10_000);
    const before = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
    const layout = layoutDeck(await deckWithHero('bomb.png', bomb));
    expect(layout.pages.flatMap((page) => page.boxes.filter((box) => box.kind === 'image'))).toEqual([]);
    expect(layout.warnings).toEqual([
      'slide-1: the hero image is too large to draw (40000×40000 pixels): left out',
    ]);
    // Unpacked, it would be 4.8 GB; nothing near that was allocated.
    const after = process.memoryUsage().arrayBuffers + process.memoryUsage().heapUsed;
    expect(after - before).toBeLessThan(64 * 1024 * 1024);
  });
});
