import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'] as const;

export interface DetectedImage {
  mimeType: (typeof IMAGE_TYPES)[number];
  width: number;
  height: number;
}

/** An SVG document: optional XML declaration, comments and doctype, then an <svg> root. */
const SVG_START =
  /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i;

/**
 * What an upload really is, judged by its bytes, never by its name: PNG, JPEG, GIF and WebP
 * by their signatures, SVG by its root element. Null: not one of the accepted images.
 * Throws when the type is recognised but its size cannot be read (a corrupt file).
 */
export async function detectImage(bytes: Buffer): Promise<DetectedImage | null> {
  const type = await fileTypeFromBuffer(bytes);
  let mimeType: DetectedImage['mimeType'];
  // file-type calls any XML document application/xml; an SVG is one with an <svg> root.
  if (type && type.mime !== 'application/xml') {
    if (!(IMAGE_TYPES as readonly string[]).includes(type.mime)) return null;
    mimeType = type.mime as DetectedImage['mimeType'];
  } else if (SVG_START.test(bytes.subarray(0, 64 * 1024).toString('utf8'))) {
    mimeType = 'image/svg+xml';
  } else {
    return null;
  }
  const { width, height } = imageSize(bytes);
  if (!width || !height) throw new Error('the image has no size');
  return { mimeType, width: Math.round(width), height: Math.round(height) };
}
