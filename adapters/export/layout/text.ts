import { ascentRatio, BASE_FAMILY, type FontWeight, textWidth } from '../fonts.ts';
import type { TextBox } from './boxes.ts';

/**
 * Text fitted into a box: wrapped at a size, shrunk step by step, then cut with an ellipsis,
 * measured with the bundled fonts' metrics (so the PDF, the PowerPoint and the video break alike).
 */

/** A text box never measures more than this many characters (what a box can show, many times over). */
export const MAX_MEASURED_CHARS = 3000;
const ELLIPSIS = '…';

const RTL_FIRST_STRONG = /^[^\p{L}]*[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const SPACES = /\s+/u;
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemesOf(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (s) => s.segment);
}

/** One paragraph broken into lines of at most `width`; a word wider than a line is broken. */
function wrapParagraph(paragraph: string, width: number, size: number, weight: FontWeight): string[] {
  const lines: string[] = [];
  let line = '';
  const spaceWidth = textWidth(' ', size, weight);
  let lineWidth = 0;
  for (const word of paragraph.split(SPACES)) {
    if (word === '') continue;
    const wordWidth = textWidth(word, size, weight);
    if (line !== '' && lineWidth + spaceWidth + wordWidth <= width) {
      line += ` ${word}`;
      lineWidth += spaceWidth + wordWidth;
      continue;
    }
    if (line !== '') lines.push(line);
    if (wordWidth <= width) {
      line = word;
      lineWidth = wordWidth;
      continue;
    }
    // A word wider than the line (or text without spaces: CJK): break between graphemes.
    line = '';
    lineWidth = 0;
    for (const g of graphemesOf(word)) {
      const w = textWidth(g, size, weight);
      if (line !== '' && lineWidth + w > width) {
        lines.push(line);
        line = '';
        lineWidth = 0;
      }
      line += g;
      lineWidth += w;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function wrap(text: string, width: number, size: number, weight: FontWeight): string[] {
  return text.split('\n').flatMap((p) => {
    const lines = wrapParagraph(p, width, size, weight);
    return lines.length > 0 ? lines : [''];
  });
}

/** `line` cut at the end so that it and an ellipsis fit `width`. */
function withEllipsis(line: string, width: number, size: number, weight: FontWeight): string {
  const graphemes = graphemesOf(line);
  while (graphemes.length > 0 && textWidth(`${graphemes.join('')}${ELLIPSIS}`, size, weight) > width)
    graphemes.pop();
  return `${graphemes.join('').trimEnd()}${ELLIPSIS}`;
}

export interface TextStyle {
  size: number;
  /** Shrink down to this before cutting. */
  minSize?: number;
  weight?: FontWeight;
  color: string;
  align?: TextBox['align'];
  valign?: TextBox['valign'];
  link?: string | null;
  lineSpacing?: number;
  brandFont?: string | null;
  family?: string;
  /** The lines at most (a title: 2). */
  maxLines?: number;
}

/** A text box: wrapped at `size`, shrunk step by step to `minSize`, then cut with an ellipsis. */
export function fitText(text: string, x: number, y: number, w: number, h: number, style: TextStyle): TextBox {
  const weight = style.weight ?? 400;
  const spacing = style.lineSpacing ?? 1.25;
  const clean = text.replace(/\r\n?/g, '\n').trim();
  const measured = clean.length > MAX_MEASURED_CHARS ? clean.slice(0, MAX_MEASURED_CHARS) : clean;
  let size = style.size;
  const minSize = style.minSize ?? style.size;
  let lines = wrap(measured, w, size, weight);
  const fits = (n: number, s: number) =>
    n * s * spacing <= h + 0.5 && n <= (style.maxLines ?? Number.POSITIVE_INFINITY);
  while (!fits(lines.length, size) && size > minSize) {
    size = Math.max(minSize, Math.floor(size * 0.9));
    lines = wrap(measured, w, size, weight);
  }
  let cut = measured !== clean;
  const room = Math.max(
    1,
    Math.min(Math.floor((h + 0.5) / (size * spacing)), style.maxLines ?? Number.POSITIVE_INFINITY),
  );
  if (lines.length > room) {
    lines = lines.slice(0, room);
    cut = true;
  }
  if (cut && lines.length > 0) {
    lines[lines.length - 1] = withEllipsis(lines[lines.length - 1] ?? '', w, size, weight);
  }
  return {
    kind: 'text',
    x,
    y,
    w,
    h,
    text: cut ? lines.join('\n') : clean,
    lines,
    fontSize: size,
    lineHeight: size * spacing,
    weight,
    family: style.family ?? BASE_FAMILY,
    brandFont: style.brandFont ?? null,
    color: style.color,
    align: style.align ?? 'left',
    valign: style.valign ?? 'top',
    rtl: RTL_FIRST_STRONG.test(clean),
    link: style.link ?? null,
  };
}

/** Where a text box's line `i` has its baseline, in page pixels (PDF and video draw there). */
export function baselineOf(box: TextBox, i: number): number {
  const block = box.lines.length * box.lineHeight;
  const top = box.valign === 'middle' ? box.y + (box.h - block) / 2 : box.y;
  // The line's box is lineHeight tall; the glyphs sit centred in it, ascent above the baseline.
  const lead = (box.lineHeight - box.fontSize) / 2;
  return top + i * box.lineHeight + lead + box.fontSize * ascentRatio(box.weight);
}

/** Where line `i` starts, given its width (alignment; right-to-left text is set from the right). */
export function lineStartOf(box: TextBox, lineWidth: number): number {
  const align = box.align === 'left' && box.rtl ? 'right' : box.align;
  if (align === 'center') return box.x + (box.w - lineWidth) / 2;
  if (align === 'right') return box.x + box.w - lineWidth;
  return box.x;
}
