import type { DeckSnapshot } from '../../domain/ports/deck-exporter.ts';
import { missingCharacters } from './fonts.ts';
import type { DeckLayout, LayoutPage, Palette } from './layout/boxes.ts';
import { closingPage, faqPage, introPage, slidePage } from './layout/pages.ts';
import type { Context } from './layout/parts.ts';
import { pricingPage } from './layout/pricing.ts';

/**
 * The one slide layout (decision 073): every page of an export — intro, each slide, the pricing
 * comparison, each FAQ, the closing — as boxes placed on a 1920×1080 page. The PDF, the PowerPoint
 * and the video draw these same boxes, each in its own units, so they look alike: text is wrapped
 * and shrunk (or cut with an ellipsis) here, measured with the bundled fonts' metrics.
 */

const DEFAULT_PALETTE: Palette = {
  primary: '#1A73E8',
  primaryLight: '#E8F0FE',
  accent: '#F9AB00',
  neutral: '#F1F3F4',
  text: '#202124',
};

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
