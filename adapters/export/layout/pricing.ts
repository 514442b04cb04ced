import type { ExportSlide } from '../../../domain/ports/deck-exporter.ts';
import type { ProductData } from '../../../domain/slides/product-data.ts';
import { type Box, type LayoutPage, MARGIN, PAGE, rect } from './boxes.ts';
import { bulletBoxes, type Context, chrome, readableOn, slideLayoutPage, textBox } from './parts.ts';

/** The pricing slide as its comparison: three tiers side by side, the recommended one marked. */

const PERIODS: Record<string, string> = { one_time: 'one time', month: 'per month', year: 'per year' };

function price(tier: ProductData['good']): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: tier.currency }).format(tier.price);
  } catch {
    return `${tier.price} ${tier.currency}`;
  }
}

export function pricingPage(
  ctx: Context,
  slide: ExportSlide,
  data: ProductData,
  pageNumber: number,
): LayoutPage {
  const { palette } = ctx;
  const boxes: Box[] = chrome(ctx, pageNumber, true);
  const title = slide.title?.trim() || 'Pricing';
  boxes.push(textBox(ctx, 'heading', title, MARGIN, 60, PAGE.width - 2 * MARGIN - 280, 100, { maxLines: 1 }));
  const subtitle = data.subtitle?.trim();
  if (subtitle)
    boxes.push(
      textBox(ctx, 'body', subtitle, MARGIN, 160, PAGE.width - 2 * MARGIN - 280, 60, {
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
    boxes.push(
      rect(x, top, columnWidth, bottom - top, marked ? palette.primaryLight : palette.neutral, {
        radius: 24,
        stroke: marked ? palette.primary : null,
      }),
    );
    if (marked) {
      boxes.push(rect(x + columnWidth - 260, top + 24, 236, 48, palette.primary, { radius: 24 }));
      boxes.push(
        textBox(ctx, 'body', 'Recommended', x + columnWidth - 260, top + 24, 236, 48, {
          size: 24,
          weight: 700,
          color: readableOn(palette.primary),
          align: 'center',
          valign: 'middle',
          maxLines: 1,
        }),
      );
    }
    boxes.push(
      textBox(ctx, 'heading', tier.name, x + 40, top + 90, inner, 60, { size: 44, minSize: 28, maxLines: 1 }),
    );
    boxes.push(
      textBox(ctx, 'heading', price(tier), x + 40, top + 160, inner, 80, {
        size: 64,
        minSize: 36,
        maxLines: 1,
        color: palette.primary,
      }),
    );
    boxes.push(
      textBox(ctx, 'body', PERIODS[tier.billingPeriod] ?? '', x + 40, top + 240, inner, 40, {
        size: 26,
        maxLines: 1,
      }),
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
      boxes.push(
        rect(x + 40, bottom - 100, inner, 70, marked ? palette.primary : '#FFFFFF', {
          radius: 35,
          stroke: palette.primary,
        }),
      );
      boxes.push(
        textBox(ctx, 'body', tier.ctaText, x + 40, bottom - 100, inner, 70, {
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
    boxes.push(
      textBox(ctx, 'body', disclaimer, MARGIN, 915, PAGE.width - 2 * MARGIN, 80, { size: 20, minSize: 14 }),
    );
  return slideLayoutPage('pricing', slide, title, boxes);
}
