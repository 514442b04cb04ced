import { readFileSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { imageSize } from 'image-size';
import type { DeckSnapshot, ExportSlide } from '../../domain/ports/deck-exporter.ts';
import type { ProductData } from '../../domain/slides/product-data.ts';
import {
  ascentRatio,
  BASE_FAMILY,
  FAMILIES,
  type FontWeight,
  missingCharacters,
  textWidth,
} from './fonts.ts';

/**
 * The one slide layout (decision 073): every page of an export — intro, each slide, the pricing
 * comparison, each FAQ, the closing — as boxes placed on a 1920×1080 page. The PDF, the PowerPoint
 * and the video draw these same boxes, each in its own units, so they look alike: text is wrapped
 * and shrunk (or cut with an ellipsis) here, measured with the bundled fonts' metrics.
 */
export const PAGE = { width: 1920, height: 1080 } as const;

export interface TextBox {
  kind: 'text';
  x: number;
  y: number;
  w: number;
  h: number;
  /** The text as fitted (cut with an ellipsis when it did not fit): what PowerPoint shows. */
  text: string;
  /** `text` broken into the lines the PDF and the video draw, top to bottom. */
  lines: string[];
  /** In page pixels (1920 wide). */
  fontSize: number;
  /** Baseline to baseline, in page pixels. */
  lineHeight: number;
  weight: FontWeight;
  /** The bundled family measured with (the brand's when bundled, else the base). */
  family: string;
  /** The brand's font for this role, when it names one (PowerPoint shows it when installed). */
  brandFont: string | null;
  color: string;
  align: 'left' | 'center' | 'right';
  valign: 'top' | 'middle';
  /** Right-to-left text (Arabic, Hebrew): set from the right. */
  rtl: boolean;
  /** A link the whole box follows (an http(s), mailto: or tel: URL). */
  link: string | null;
}

export interface ImageBox {
  kind: 'image';
  /** Where the image is drawn: already fitted into its place (aspect ratio kept). */
  x: number;
  y: number;
  w: number;
  h: number;
  path: string;
  /** As image-size names it: png, jpg, gif, webp, svg, … (a renderer that cannot draw it warns). */
  format: string;
  /** What it is, for a warning: "slide-3: the hero image". */
  label: string;
}

export interface RectBox {
  kind: 'rect';
  x: number;
  y: number;
  w: number;
  h: number;
  fill: string;
  radius: number;
  stroke: string | null;
  link: string | null;
}

export type Box = TextBox | ImageBox | RectBox;

export interface LayoutPage {
  kind: 'intro' | 'slide' | 'pricing' | 'faq' | 'closing';
  /** The page's name in warnings: intro, slide-3, faq-2, closing. */
  name: string;
  /** Bookmark, chapter and outline title. */
  title: string;
  background: string;
  boxes: Box[];
  /** The narration: speaker notes, captions. */
  script: string | null;
  audioPath: string | null;
}

export interface Palette {
  primary: string;
  primaryLight: string;
  accent: string;
  neutral: string;
  text: string;
}

export interface DeckLayout {
  pages: LayoutPage[];
  palette: Palette;
  warnings: string[];
}

const DEFAULT_PALETTE: Palette = {
  primary: '#1A73E8',
  primaryLight: '#E8F0FE',
  accent: '#F9AB00',
  neutral: '#F1F3F4',
  text: '#202124',
};

/** An image larger than this many pixels is refused before any renderer decodes it (a bomb). */
export const MAX_IMAGE_PIXELS = 25_000_000;
/** A text box never measures more than this many characters (what a box can show, many times over). */
const MAX_MEASURED_CHARS = 3000;
const MARGIN = 120;
const ELLIPSIS = '…';

// ---------------------------------------------------------------------------------------------
// Text fitting

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

function wrap(text: string, width: number, size: number, weight: FontWeight): string[] {
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

interface TextStyle {
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

// ---------------------------------------------------------------------------------------------
// Colours and images

function hex(colour: string | undefined, fallback: string): string {
  if (!colour || !/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(colour)) return fallback;
  const digits = colour.slice(1);
  const full =
    digits.length === 3
      ? digits
          .split('')
          .map((d) => d + d)
          .join('')
      : digits;
  return `#${full.toUpperCase()}`;
}

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
function readableOn(background: string): string {
  const channel = (i: number) => {
    const c = Number.parseInt(background.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.4 ? '#202124' : '#FFFFFF';
}

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
function fitImage(
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

// ---------------------------------------------------------------------------------------------
// Pages

interface Context {
  snapshot: DeckSnapshot;
  palette: Palette;
  headingFont: string | null;
  bodyFont: string | null;
  warnings: string[];
}

function familyFor(brandFont: string | null): string {
  const bundled = FAMILIES.find((f) => brandFont && f.family.toLowerCase() === brandFont.toLowerCase());
  return bundled?.family ?? BASE_FAMILY;
}

function heading(
  ctx: Context,
  text: string,
  x: number,
  y: number,
  w: number,
  h: number,
  style: Partial<TextStyle> = {},
) {
  return fitText(text, x, y, w, h, {
    size: 64,
    minSize: 40,
    weight: 700,
    color: ctx.palette.text,
    maxLines: 2,
    brandFont: ctx.headingFont,
    family: familyFor(ctx.headingFont),
    ...style,
  });
}

function body(
  ctx: Context,
  text: string,
  x: number,
  y: number,
  w: number,
  h: number,
  style: Partial<TextStyle> = {},
) {
  return fitText(text, x, y, w, h, {
    size: 36,
    minSize: 22,
    color: ctx.palette.text,
    brandFont: ctx.bodyFont,
    family: familyFor(ctx.bodyFont),
    ...style,
  });
}

/** The footer every content page has: a thin brand bar, the brand's name, the page number. */
function chrome(ctx: Context, pageNumber: number, withLogo: boolean): Box[] {
  const boxes: Box[] = [
    {
      kind: 'rect',
      x: 0,
      y: 0,
      w: PAGE.width,
      h: 16,
      fill: ctx.palette.primary,
      radius: 0,
      stroke: null,
      link: null,
    },
  ];
  const name = ctx.snapshot.branding?.name;
  if (name) boxes.push(body(ctx, name, MARGIN, 1010, 900, 40, { size: 24, minSize: 18, maxLines: 1 }));
  boxes.push(
    body(ctx, String(pageNumber), PAGE.width - MARGIN - 200, 1010, 200, 40, { size: 24, align: 'right' }),
  );
  if (withLogo) {
    const logo = fitImage(
      ctx.snapshot.logoPath,
      'the brand logo',
      { x: PAGE.width - MARGIN - 240, y: 48, w: 240, h: 96 },
      [],
    );
    if (logo) boxes.push(logo);
  }
  return boxes;
}

function introPage(ctx: Context): LayoutPage {
  const { snapshot, palette } = ctx;
  const onPrimary = readableOn(palette.primary);
  const boxes: Box[] = [];
  const logo = fitImage(
    snapshot.logoPath,
    'the brand logo',
    { x: MARGIN, y: 100, w: 320, h: 140 },
    ctx.warnings,
  );
  if (logo) boxes.push(logo);
  boxes.push(
    heading(ctx, snapshot.deckName, MARGIN, 340, PAGE.width - 2 * MARGIN, 260, {
      size: 104,
      minSize: 56,
      color: onPrimary,
      maxLines: 2,
    }),
  );
  const title = snapshot.intro?.title;
  if (title)
    boxes.push(
      body(ctx, title, MARGIN, 640, PAGE.width - 2 * MARGIN, 180, {
        size: 48,
        minSize: 30,
        color: onPrimary,
        maxLines: 3,
      }),
    );
  boxes.push({
    kind: 'rect',
    x: MARGIN,
    y: 610,
    w: 240,
    h: 8,
    fill: palette.accent,
    radius: 4,
    stroke: null,
    link: null,
  });
  const name = snapshot.branding?.name;
  if (name) boxes.push(body(ctx, name, MARGIN, 960, 1200, 50, { size: 30, color: onPrimary, maxLines: 1 }));
  return {
    kind: 'intro',
    name: 'intro',
    title: title || snapshot.deckName,
    background: palette.primary,
    boxes,
    script: snapshot.intro?.script || null,
    audioPath: snapshot.intro?.audioPath ?? null,
  };
}

function slidePage(ctx: Context, slide: ExportSlide, pageNumber: number): LayoutPage {
  const { palette } = ctx;
  const boxes: Box[] = chrome(ctx, pageNumber, true);
  const title = slide.title?.trim() || `Slide ${slide.slideId.replace('slide-', '')}`;
  const hero = fitImage(
    slide.heroImagePath,
    `${slide.slideId}: the hero image`,
    { x: 1080, y: 200, w: 720, h: 720 },
    ctx.warnings,
  );
  const columnWidth = hero ? 1080 - MARGIN - 60 : PAGE.width - 2 * MARGIN;
  boxes.push(heading(ctx, title, MARGIN, 60, PAGE.width - 2 * MARGIN - 280, 170));
  if (hero) boxes.push(hero);
  const contextText = slide.slideContext?.trim() ?? '';
  const bulletsBottom = contextText ? 800 : 960;
  boxes.push(
    ...bulletBoxes(ctx, slide.bullets, MARGIN, 250, columnWidth, bulletsBottom - 250, slide.slideId),
  );
  if (contextText) {
    boxes.push({
      kind: 'rect',
      x: MARGIN - 24,
      y: 820,
      w: columnWidth + 48,
      h: 170,
      fill: palette.neutral,
      radius: 16,
      stroke: null,
      link: null,
    });
    boxes.push(body(ctx, contextText, MARGIN, 840, columnWidth, 130, { size: 28, minSize: 20 }));
  }
  return {
    kind: 'slide',
    name: slide.slideId,
    title,
    background: '#FFFFFF',
    boxes,
    script: slide.narrationScript?.trim() || null,
    audioPath: slide.audioPath,
  };
}

/** Bullets in one size for all (the largest at which all fit), each with an accent mark. */
function bulletBoxes(
  ctx: Context,
  bullets: string[],
  x: number,
  y: number,
  w: number,
  h: number,
  name: string,
): Box[] {
  const items = bullets.map((b) => b.trim()).filter((b) => b !== '');
  if (items.length === 0) return [];
  const indent = 44;
  const gap = 0.5;
  let size = 40;
  const spacing = 1.25;
  const height = (s: number) =>
    items.reduce(
      (sum, b) =>
        sum + wrap(b.slice(0, MAX_MEASURED_CHARS), w - indent, s, 400).length * s * spacing + s * gap,
      0,
    );
  while (size > 22 && height(size) > h) size = Math.max(22, Math.floor(size * 0.9));
  const boxes: Box[] = [];
  let top = y;
  for (const [i, bullet] of items.entries()) {
    const room = y + h - top;
    if (room < size * spacing) {
      ctx.warnings.push(`${name}: ${items.length - i} bullet(s) did not fit and were left out`);
      break;
    }
    const box = body(ctx, bullet, x + indent, top, w - indent, room, {
      size,
      minSize: size,
      lineSpacing: spacing,
    });
    boxes.push({
      kind: 'rect',
      x,
      y: top + (size * spacing) / 2 - 7,
      w: 14,
      h: 14,
      fill: ctx.palette.accent,
      radius: 7,
      stroke: null,
      link: null,
    });
    boxes.push({ ...box, h: box.lines.length * box.lineHeight });
    top += box.lines.length * box.lineHeight + size * gap;
  }
  return boxes;
}

const PERIODS: Record<string, string> = { one_time: 'one time', month: 'per month', year: 'per year' };

function price(tier: ProductData['good']): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: tier.currency }).format(tier.price);
  } catch {
    return `${tier.price} ${tier.currency}`;
  }
}

function pricingPage(ctx: Context, slide: ExportSlide, data: ProductData, pageNumber: number): LayoutPage {
  const { palette } = ctx;
  const boxes: Box[] = chrome(ctx, pageNumber, true);
  const title = slide.title?.trim() || 'Pricing';
  boxes.push(heading(ctx, title, MARGIN, 60, PAGE.width - 2 * MARGIN - 280, 100, { maxLines: 1 }));
  const subtitle = data.subtitle?.trim();
  if (subtitle)
    boxes.push(
      body(ctx, subtitle, MARGIN, 160, PAGE.width - 2 * MARGIN - 280, 60, {
        size: 32,
        minSize: 22,
        maxLines: 1,
      }),
    );
  const gap = 40;
  const columnWidth = (PAGE.width - 2 * MARGIN - 2 * gap) / 3;
  const disclaimer = data.disclaimer?.trim();
  const top = 250;
  const bottom = disclaimer ? 900 : 980;
  for (const [i, name] of (['good', 'better', 'best'] as const).entries()) {
    const tier = data[name];
    const marked = data.defaultSelectedTier === name;
    const x = MARGIN + i * (columnWidth + gap);
    const inner = columnWidth - 80;
    boxes.push({
      kind: 'rect',
      x,
      y: top,
      w: columnWidth,
      h: bottom - top,
      fill: marked ? palette.primaryLight : palette.neutral,
      radius: 24,
      stroke: marked ? palette.primary : null,
      link: null,
    });
    if (marked) {
      boxes.push({
        kind: 'rect',
        x: x + columnWidth - 260,
        y: top + 24,
        w: 236,
        h: 48,
        fill: palette.primary,
        radius: 24,
        stroke: null,
        link: null,
      });
      boxes.push(
        body(ctx, 'Recommended', x + columnWidth - 260, top + 24, 236, 48, {
          size: 24,
          weight: 700,
          color: readableOn(palette.primary),
          align: 'center',
          valign: 'middle',
          maxLines: 1,
        }),
      );
    }
    boxes.push(heading(ctx, tier.name, x + 40, top + 90, inner, 60, { size: 44, minSize: 28, maxLines: 1 }));
    boxes.push(
      heading(ctx, price(tier), x + 40, top + 160, inner, 80, {
        size: 64,
        minSize: 36,
        maxLines: 1,
        color: palette.primary,
      }),
    );
    boxes.push(
      body(ctx, PERIODS[tier.billingPeriod] ?? '', x + 40, top + 240, inner, 40, { size: 26, maxLines: 1 }),
    );
    const buttonHeight = tier.ctaText ? 90 : 0;
    const featuresBottom = bottom - 30 - buttonHeight;
    boxes.push(
      ...bulletBoxes(
        ctx,
        tier.features,
        x + 40,
        top + 300,
        inner,
        featuresBottom - (top + 300),
        `${slide.slideId} (${tier.name})`,
      ),
    );
    if (tier.ctaText) {
      boxes.push({
        kind: 'rect',
        x: x + 40,
        y: bottom - 100,
        w: inner,
        h: 70,
        fill: marked ? palette.primary : '#FFFFFF',
        radius: 35,
        stroke: palette.primary,
        link: null,
      });
      boxes.push(
        body(ctx, tier.ctaText, x + 40, bottom - 100, inner, 70, {
          size: 28,
          minSize: 20,
          weight: 700,
          color: marked ? readableOn(palette.primary) : palette.primary,
          align: 'center',
          valign: 'middle',
          maxLines: 1,
        }),
      );
    }
  }
  if (disclaimer)
    boxes.push(body(ctx, disclaimer, MARGIN, 915, PAGE.width - 2 * MARGIN, 80, { size: 20, minSize: 14 }));
  return {
    kind: 'pricing',
    name: slide.slideId,
    title,
    background: '#FFFFFF',
    boxes,
    script: slide.narrationScript?.trim() || null,
    audioPath: slide.audioPath,
  };
}

function faqPage(ctx: Context, faq: DeckSnapshot['faqs'][number], n: number, pageNumber: number): LayoutPage {
  const boxes: Box[] = chrome(ctx, pageNumber, true);
  boxes.push(
    body(ctx, `FAQ ${n}`, MARGIN, 60, 400, 50, {
      size: 30,
      weight: 700,
      color: ctx.palette.primary,
      maxLines: 1,
    }),
  );
  boxes.push(
    heading(ctx, faq.question, MARGIN, 120, PAGE.width - 2 * MARGIN - 280, 260, {
      size: 60,
      minSize: 36,
      maxLines: 3,
    }),
  );
  boxes.push({
    kind: 'rect',
    x: MARGIN,
    y: 400,
    w: 160,
    h: 8,
    fill: ctx.palette.accent,
    radius: 4,
    stroke: null,
    link: null,
  });
  boxes.push(body(ctx, faq.answer, MARGIN, 440, PAGE.width - 2 * MARGIN, 540, { size: 40, minSize: 24 }));
  return {
    kind: 'faq',
    name: `faq-${n}`,
    title: faq.question.trim() || `FAQ ${n}`,
    background: '#FFFFFF',
    boxes,
    script: faq.answer.trim() || null,
    audioPath: faq.audioPath,
  };
}

function closingPage(ctx: Context): LayoutPage | null {
  const branding = ctx.snapshot.branding;
  if (!branding) return null;
  const { palette } = ctx;
  const { cta, contact } = branding;
  const onPrimary = readableOn(palette.primary);
  const boxes: Box[] = [];
  const logo = fitImage(ctx.snapshot.logoPath, 'the brand logo', { x: MARGIN, y: 100, w: 320, h: 140 }, []);
  if (logo) boxes.push(logo);
  boxes.push(
    heading(ctx, cta.headline, MARGIN, 280, PAGE.width - 2 * MARGIN, 220, {
      size: 88,
      minSize: 48,
      color: onPrimary,
      maxLines: 2,
    }),
  );
  if (cta.body)
    boxes.push(
      body(ctx, cta.body, MARGIN, 520, PAGE.width - 2 * MARGIN, 170, {
        size: 40,
        minSize: 26,
        color: onPrimary,
      }),
    );
  const label = cta.buttonText;
  const buttonWidth = Math.min(900, Math.max(360, textWidth(label, 40, 700) + 120));
  boxes.push({
    kind: 'rect',
    x: MARGIN,
    y: 730,
    w: buttonWidth,
    h: 100,
    fill: palette.accent,
    radius: 50,
    stroke: null,
    link: cta.buttonUrl,
  });
  boxes.push(
    body(ctx, label, MARGIN, 730, buttonWidth, 100, {
      size: 40,
      minSize: 24,
      weight: 700,
      color: readableOn(palette.accent),
      align: 'center',
      valign: 'middle',
      maxLines: 1,
      link: cta.buttonUrl,
    }),
  );
  const lines: { text: string; link: string }[] = [];
  if (contact?.email) lines.push({ text: contact.email, link: `mailto:${contact.email}` });
  if (contact?.phone)
    lines.push({ text: contact.phone, link: `tel:${contact.phone.replace(/[^\d+]/g, '')}` });
  for (const [i, line] of lines.entries()) {
    boxes.push(
      body(ctx, line.text, MARGIN, 880 + i * 56, 1200, 50, {
        size: 32,
        color: onPrimary,
        maxLines: 1,
        link: line.link,
      }),
    );
  }
  if (branding.name) {
    boxes.push(
      body(ctx, branding.name, PAGE.width - MARGIN - 800, 1000, 800, 50, {
        size: 28,
        color: onPrimary,
        align: 'right',
        maxLines: 1,
      }),
    );
  }
  return {
    kind: 'closing',
    name: 'closing',
    title: cta.headline,
    background: palette.primary,
    boxes,
    script: null,
    audioPath: null,
  };
}

/** Texts a page shows that no bundled font can draw: one warning per page. */
function glyphWarnings(page: LayoutPage, warnings: string[]): void {
  const missing = new Set<string>();
  for (const box of page.boxes) {
    if (box.kind !== 'text') continue;
    for (const c of missingCharacters(box.text)) missing.add(c);
    if (missing.size >= 5) break;
  }
  if (missing.size > 0) {
    warnings.push(`${page.name}: no bundled font has ${[...missing].slice(0, 5).join(' ')} (drawn as a box)`);
  }
}

/** The deck as pages, in deck order: intro, slides (pricing as its comparison), FAQs, closing. */
export function layoutDeck(snapshot: DeckSnapshot): DeckLayout {
  const branding = snapshot.branding;
  const palette: Palette = {
    primary: hex(branding?.palette.primary, DEFAULT_PALETTE.primary),
    primaryLight: hex(branding?.palette.primaryLight, DEFAULT_PALETTE.primaryLight),
    accent: hex(branding?.palette.accent, DEFAULT_PALETTE.accent),
    neutral: hex(branding?.palette.neutral, DEFAULT_PALETTE.neutral),
    text: hex(branding?.palette.text, DEFAULT_PALETTE.text),
  };
  const fonts = branding?.fonts ?? {};
  const headingFont = fonts.heading ?? fonts.title ?? fonts.primary ?? null;
  const bodyFont = fonts.body ?? fonts.text ?? fonts.secondary ?? headingFont;
  const ctx: Context = { snapshot, palette, headingFont, bodyFont, warnings: [] };
  const pages: LayoutPage[] = [introPage(ctx)];
  for (const slide of snapshot.slides) {
    const n = pages.length + 1;
    pages.push(
      slide.slideType === 'product_pricing_v1' && slide.productData
        ? pricingPage(ctx, slide, slide.productData, n)
        : slidePage(ctx, slide, n),
    );
  }
  for (const [i, faq] of snapshot.faqs.entries()) pages.push(faqPage(ctx, faq, i + 1, pages.length + 1));
  const closing = closingPage(ctx);
  if (closing) pages.push(closing);
  for (const page of pages) glyphWarnings(page, ctx.warnings);
  return { pages, palette, warnings: ctx.warnings };
}

/** An image box's label in a warning: the hero's names its slide already ("slide-3: the hero image"), the logo's does not. */
export function imageLabel(page: LayoutPage, box: ImageBox): string {
  return box.label.startsWith(`${page.name}:`) ? box.label : `${page.name}: ${box.label}`;
}
