import { readFileSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { imageSize } from 'image-size';
import type { ImageBox } from './boxes.ts';

/** An image larger than this many pixels is refused before any renderer decodes it (a bomb). */
export const MAX_IMAGE_PIXELS = 25_000_000;

const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Whether an image's data is whole, beyond the header image-size read: a PNG's chunks pass their
 * CRCs and its pixels inflate to exactly the size its header says (pdfkit inflates some PNGs in a
 * callback that throws where nothing can catch it); a JPEG ends with its end-of-image marker.
 * Other formats are judged by their header (a renderer that cannot draw them says so).
 */
function decodes(bytes: Buffer, type: string, width: number, height: number): boolean {
  if (type === 'jpg') return bytes.length > 4 && bytes.subarray(-64).includes(Buffer.from([0xff, 0xd9]));
  if (type !== 'png') return true;
  const idat: Buffer[] = [];
  let bitDepth = 0;
  let colourType = -1;
  let interlaced = false;
  let at = 8;
  let ended = false;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    if (at + 12 + length > bytes.length) return false;
    const type = bytes.subarray(at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)) return false;
    const name = type.toString('latin1');
    if (name === 'IHDR') {
      bitDepth = data[8] ?? 0;
      colourType = data[9] ?? -1;
      interlaced = data[12] === 1;
    } else if (name === 'IDAT') idat.push(data);
    else if (name === 'IEND') {
      ended = true;
      break;
    }
    at += 12 + length;
  }
  const channels = PNG_CHANNELS[colourType];
  if (!ended || !channels || idat.length === 0) return false;
  const rowBytes = 1 + Math.ceil((width * channels * bitDepth) / 8);
  const expected = rowBytes * height;
  try {
    // Adam7 passes add a filter byte per row of each pass: at most 2× (plus a little) the plain size.
    const pixels = inflateSync(Buffer.concat(idat), {
      maxOutputLength: interlaced ? expected * 2 + 64 : expected,
    });
    return interlaced ? pixels.length >= expected - height : pixels.length === expected;
  } catch {
    return false;
  }
}

/** An image fitted inside a place (aspect ratio kept, centred), or null and a warning. */
export function fitImage(
  path: string | null,
  label: string,
  place: { x: number; y: number; w: number; h: number },
  warnings: string[],
): ImageBox | null {
  if (!path) return null;
  let size: { width?: number; height?: number; type?: string };
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
    size = imageSize(bytes);
  } catch {
    warnings.push(`${label} does not decode as an image: left out`);
    return null;
  }
  const { width, height } = size;
  if (!width || !height) {
    warnings.push(`${label} has no size: left out`);
    return null;
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    warnings.push(`${label} is too large to draw (${width}×${height} pixels): left out`);
    return null;
  }
  if (!decodes(bytes, size.type ?? '', width, height)) {
    warnings.push(`${label} does not decode as an image: left out`);
    return null;
  }
  const scale = Math.min(place.w / width, place.h / height);
  const w = width * scale;
  const h = height * scale;
  return {
    kind: 'image',
    x: place.x + (place.w - w) / 2,
    y: place.y + (place.h - h) / 2,
    w,
    h,
    path,
    format: size.type ?? 'unknown',
    label,
  };
}
