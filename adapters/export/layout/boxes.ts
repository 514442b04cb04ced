import type { FontWeight } from '../fonts.ts';

/** A page of an export, in page pixels: what every renderer draws (decision 073). */
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

/** The margin of every page's content, in page pixels. */
export const MARGIN = 120;

/** A filled rectangle: a bar, a card, a button (`link`: what it follows). */
export function rect(
  x: number,
  y: number,
  w: number,
  h: number,
  fill: string,
  options: { radius?: number; stroke?: string | null; link?: string | null } = {},
): RectBox {
  return {
    kind: 'rect',
    x,
    y,
    w,
    h,
    fill,
    radius: options.radius ?? 0,
    stroke: options.stroke ?? null,
    link: options.link ?? null,
  };
}

/** An image box's label in a warning: the hero's names its slide already ("slide-3: the hero image"), the logo's does not. */
export function imageLabel(page: LayoutPage, box: ImageBox): string {
  return box.label.startsWith(`${page.name}:`) ? box.label : `${page.name}: ${box.label}`;
}
