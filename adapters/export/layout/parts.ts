import type { DeckSnapshot, ExportSlide } from '../../../domain/ports/deck-exporter.ts';
import { BASE_FAMILY, FAMILIES } from '../fonts.ts';
import { type Box, type LayoutPage, MARGIN, PAGE, type Palette, rect } from './boxes.ts';
import { fitImage } from './image.ts';
import { fitText, MAX_MEASURED_CHARS, type TextStyle, wrap } from './text.ts';

/** What the pages of one deck share while they are laid out. */
export interface Context {
  snapshot: DeckSnapshot;
  palette: Palette;
  headingFont: string | null;
  bodyFont: string | null;
  warnings: string[];
}

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
export function readableOn(background: string): string {
  const channel = (i: number) => {
    const c = Number.parseInt(background.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.4 ? '#202124' : '#FFFFFF';
}

function familyFor(brandFont: string | null): string {
  const bundled = FAMILIES.find((f) => brandFont && f.family.toLowerCase() === brandFont.toLowerCase());
  return bundled?.family ?? BASE_FAMILY;
}

/** What a heading and body text are unless a page says otherwise; each in the brand's font for it. */
const ROLES = {
  heading: { size: 64, minSize: 40, weight: 700, maxLines: 2 },
  body: { size: 36, minSize: 22 },
} as const;

/** A heading or body text box in the deck's colours and brand font for that role. */
export function textBox(
  ctx: Context,
  role: keyof typeof ROLES,
  text: string,
  x: number,
  y: number,
  w: number,
  h: number,
  style: Partial<TextStyle> = {},
) {
  const brandFont = role === 'heading' ? ctx.headingFont : ctx.bodyFont;
  return fitText(text, x, y, w, h, {
    ...ROLES[role],
    color: ctx.palette.text,
    brandFont,
    family: familyFor(brandFont),
    ...style,
  });
}

/** The footer every content page has: a thin brand bar, the brand's name, the page number. */
export function chrome(ctx: Context, pageNumber: number, withLogo: boolean): Box[] {
  const boxes: Box[] = [rect(0, 0, PAGE.width, 16, ctx.palette.primary)];
  const name = ctx.snapshot.branding?.name;
  if (name)
    boxes.push(textBox(ctx, 'body', name, MARGIN, 1010, 900, 40, { size: 24, minSize: 18, maxLines: 1 }));
  boxes.push(
    textBox(ctx, 'body', String(pageNumber), PAGE.width - MARGIN - 200, 1010, 200, 40, {
      size: 24,
      align: 'right',
    }),
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

/** Bullets in one size for all (the largest at which all fit), each with an accent mark. */
export function bulletBoxes(
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
    const box = textBox(ctx, 'body', bullet, x + indent, top, w - indent, room, {
      size,
      minSize: size,
      lineSpacing: spacing,
    });
    boxes.push(rect(x, top + (size * spacing) / 2 - 7, 14, 14, ctx.palette.accent, { radius: 7 }));
    boxes.push({ ...box, h: box.lines.length * box.lineHeight });
    top += box.lines.length * box.lineHeight + size * gap;
  }
  return boxes;
}

/** The page of one slide of the deck (a content slide or the pricing comparison): its narration goes with it. */
export function slideLayoutPage(
  kind: 'slide' | 'pricing',
  slide: ExportSlide,
  title: string,
  boxes: Box[],
): LayoutPage {
  return {
    kind,
    name: slide.slideId,
    title,
    background: '#FFFFFF',
    boxes,
    script: slide.narrationScript?.trim() || null,
    audioPath: slide.audioPath,
  };
}
