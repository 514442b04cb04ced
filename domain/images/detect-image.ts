import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;

export interface DetectedImage {
  mimeType: (typeof IMAGE_TYPES)[number];
  width: number;
  height: number;
}

/** How much of a file is read to find an SVG's root element. */
const SVG_PROLOG_BYTES = 64 * 1024;

/**
 * What an upload really is, judged by its bytes, never by its name: PNG, JPEG, GIF and WebP
 * by their signatures, SVG by its root element. Null: not one of the accepted images.
 * Throws when the type is recognised but its size cannot be read (a corrupt file).
 *
 * Runs on the event loop, so every step is linear in a bounded part of the file: the SVG
 * prolog is scanned by hand (a regular expression for it backtracked exponentially), only
 * the root element goes to image-size (whose SVG pattern is quadratic in what follows it),
 * and JPEG markers are walked without image-size's allocation per byte.
 */
export async function detectImage(bytes: Buffer): Promise<DetectedImage | null> {
  const type = await fileTypeFromBuffer(bytes);
  // file-type calls any XML document application/xml; an SVG is one with an <svg> root.
  if (!type || type.mime === 'application/xml') {
    const root = svgRootElement(bytes.subarray(0, SVG_PROLOG_BYTES).toString('utf8'));
    if (root === null) return null;
    return measured('image/svg+xml', imageSize(Buffer.from(root, 'utf8')));
  }
  if (!(IMAGE_TYPES as readonly string[]).includes(type.mime)) return null;
  const mimeType = type.mime as DetectedImage['mimeType'];
  if (mimeType === 'image/jpeg') return measured(mimeType, jpegSize(bytes));
  // PNG, GIF and WebP keep their size in a fixed header.
  return measured(mimeType, imageSize(bytes.subarray(0, 1024)));
}

/** The largest width or height accepted: well past any screen or print size. */
const MAX_SIDE_PIXELS = 100_000;

function measured(
  mimeType: DetectedImage['mimeType'],
  size: { width?: number; height?: number },
): DetectedImage {
  const { width, height } = size;
  if (!width || !height) throw new Error('the image has no size');
  // Headers can claim anything (a PNG up to 2³²−1 a side); no real slide image comes near this.
  if (width > MAX_SIDE_PIXELS || height > MAX_SIDE_PIXELS)
    throw new Error('the image claims an impossible size');
  return { mimeType, width: Math.round(width), height: Math.round(height) };
}

const WHITE_SPACE = /\s/;

/**
 * The start tag of an SVG document's root element, or null when the text is not an SVG
 * document: an optional byte-order mark and XML declaration, comments and at most one
 * doctype (with an internal subset), then `<svg` and white space or `>` (any letter case).
 * Each construct ends at its first terminator, as XML says, so one pass decides.
 */
export function svgRootElement(text: string): string | null {
  let at = text.startsWith('\uFEFF') ? 1 : 0;
  const skipSpace = () => {
    while (at < text.length && WHITE_SPACE.test(text[at]!)) at += 1;
  };
  const startsWith = (word: string) => text.slice(at, at + word.length).toLowerCase() === word;
  skipSpace();
  if (startsWith('<?xml')) {
    const close = text.indexOf('>', at + 5);
    if (close < 0 || close - 1 < at + 5 || text[close - 1] !== '?') return null;
    at = close + 1;
    skipSpace();
  }
  let doctype = false;
  for (;;) {
    if (startsWith('<!--')) {
      const close = text.indexOf('-->', at + 4);
      if (close < 0) return null;
      at = close + 3;
    } else if (!doctype && startsWith('<!doctype')) {
      doctype = true;
      at += 9;
      while (at < text.length && text[at] !== '>' && text[at] !== '[') at += 1;
      if (text[at] === '[') {
        const close = text.indexOf(']', at + 1);
        if (close < 0) return null;
        at = close + 1;
        skipSpace();
        if (text[at] !== '>') return null;
      }
      if (at >= text.length) return null;
      at += 1;
    } else {
      break;
    }
    skipSpace();
  }
  if (!startsWith('<svg') || !/[\s>]/.test(text[at + 4] ?? '')) return null;
  // The start tag runs to the first `>` outside a quoted attribute value.
  let quote: string | null = null;
  for (let end = at + 4; end < text.length; end += 1) {
    const char = text[end];
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '>') {
      return text.slice(at, end + 1);
    }
  }
  // An <svg> root whose start tag does not end within the prolog: an SVG that cannot be measured.
  return text.slice(at);
}

/** How many bytes a JPEG walk may step over one by one looking for the next segment (see `jpegSize`). */
const MAX_JPEG_RESYNC_BYTES = 256 * 1024;

/**
 * A JPEG's width and height from its start-of-frame segment, walking the segments as
 * image-size 2 does (same answers, same errors) but by offset, with no allocation per step.
 */
export function jpegSize(bytes: Buffer): { width: number; height: number } {
  let at = 4;
  let resyncSteps = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new RangeError('Offset is outside the bounds of the DataView');
    const length = (bytes[at]! << 8) | bytes[at + 1]!;
    if (length > bytes.length - at) throw new TypeError('Corrupt JPG, exceeded buffer limits');
    if (bytes[at + length] !== 0xff) {
      // A segment that does not end at a marker is walked past byte by byte. A real file needs a
      // few such steps; 9 MB of misaligned bytes took ~55 ms of the event loop, so past
      // MAX_JPEG_RESYNC_BYTES the file is not a JPEG we can read (the same 400).
      resyncSteps += 1;
      if (resyncSteps > MAX_JPEG_RESYNC_BYTES)
        throw new TypeError('Invalid JPG, no segment found to resync to');
      at += 1;
      continue;
    }
    const marker = bytes[at + length + 1];
    if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) {
      const size = at + length + 5;
      if (size + 4 > bytes.length) throw new RangeError('Offset is outside the bounds of the DataView');
      return { height: bytes.readUInt16BE(size), width: bytes.readUInt16BE(size + 2) };
    }
    at += length + 2;
  }
  throw new TypeError('Invalid JPG, no size found');
}
