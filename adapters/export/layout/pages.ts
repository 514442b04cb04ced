import type { DeckSnapshot, ExportSlide } from '../../../domain/ports/deck-exporter.ts';
import { textWidth } from '../fonts.ts';
import { type Box, type LayoutPage, MARGIN, PAGE, rect } from './boxes.ts';
import { fitImage } from './image.ts';
import { bulletBoxes, type Context, chrome, readableOn, slideLayoutPage, textBox } from './parts.ts';

/** The intro, a content slide, a FAQ and the closing page (the pricing slide: pricing.ts). */

/** The top of the intro and of the closing page: the brand logo, then a large title on the brand colour. */
function coverTop(
  ctx: Context,
  title: string,
  at: { y: number; h: number; size: number; minSize: number },
  warnings: string[],
): Box[] {
  const boxes: Box[] = [];
  const logo = fitImage(
    ctx.snapshot.logoPath,
    'the brand logo',
    { x: MARGIN, y: 100, w: 320, h: 140 },
    warnings,
  );
  if (logo) boxes.push(logo);
  boxes.push(
    textBox(ctx, 'heading', title, MARGIN, at.y, PAGE.width - 2 * MARGIN, at.h, {
      size: at.size,
      minSize: at.minSize,
      color: readableOn(ctx.palette.primary),
      maxLines: 2,
    }),
  );
  return boxes;
}

export function introPage(ctx: Context): LayoutPage {
  const { snapshot, palette } = ctx;
  const onPrimary = readableOn(palette.primary);
  const boxes = coverTop(ctx, snapshot.deckName, { y: 340, h: 260, size: 104, minSize: 56 }, ctx.warnings);
  const title = snapshot.intro?.title;
  if (title)
    boxes.push(
      textBox(ctx, 'body', title, MARGIN, 640, PAGE.width - 2 * MARGIN, 180, {
        size: 48,
        minSize: 30,
        color: onPrimary,
        maxLines: 3,
      }),
    );
  boxes.push(rect(MARGIN, 610, 240, 8, palette.accent, { radius: 4 }));
  const name = snapshot.branding?.name;
  if (name)
    boxes.push(
      textBox(ctx, 'body', name, MARGIN, 960, 1200, 50, { size: 30, color: onPrimary, maxLines: 1 }),
    );
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

export function slidePage(ctx: Context, slide: ExportSlide, pageNumber: number): LayoutPage {
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
  boxes.push(textBox(ctx, 'heading', title, MARGIN, 60, PAGE.width - 2 * MARGIN - 280, 170));
  if (hero) boxes.push(hero);
  const contextText = slide.slideContext?.trim() ?? '';
  const bulletsBottom = contextText ? 800 : 960;
  boxes.push(
    ...bulletBoxes(ctx, slide.bullets, MARGIN, 250, columnWidth, bulletsBottom - 250, slide.slideId),
  );
  if (contextText) {
    boxes.push(rect(MARGIN - 24, 820, columnWidth + 48, 170, palette.neutral, { radius: 16 }));
    boxes.push(textBox(ctx, 'body', contextText, MARGIN, 840, columnWidth, 130, { size: 28, minSize: 20 }));
  }
  return slideLayoutPage('slide', slide, title, boxes);
}

export function faqPage(
  ctx: Context,
  faq: DeckSnapshot['faqs'][number],
  n: number,
  pageNumber: number,
): LayoutPage {
  const boxes: Box[] = chrome(ctx, pageNumber, true);
  boxes.push(
    textBox(ctx, 'body', `FAQ ${n}`, MARGIN, 60, 400, 50, {
      size: 30,
      weight: 700,
      color: ctx.palette.primary,
      maxLines: 1,
    }),
  );
  boxes.push(
    textBox(ctx, 'heading', faq.question, MARGIN, 120, PAGE.width - 2 * MARGIN - 280, 260, {
      size: 60,
      minSize: 36,
      maxLines: 3,
    }),
  );
  boxes.push(rect(MARGIN, 400, 160, 8, ctx.palette.accent, { radius: 4 }));
  boxes.push(
    textBox(ctx, 'body', faq.answer, MARGIN, 440, PAGE.width - 2 * MARGIN, 540, { size: 40, minSize: 24 }),
  );
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

export function closingPage(ctx: Context): LayoutPage | null {
  const branding = ctx.snapshot.branding;
  if (!branding) return null;
  const { palette } = ctx;
  const { cta, contact } = branding;
  const onPrimary = readableOn(palette.primary);
  // The intro warned about the logo already.
  const boxes = coverTop(ctx, cta.headline, { y: 280, h: 220, size: 88, minSize: 48 }, []);
  if (cta.body)
    boxes.push(
      textBox(ctx, 'body', cta.body, MARGIN, 520, PAGE.width - 2 * MARGIN, 170, {
        size: 40,
        minSize: 26,
        color: onPrimary,
      }),
    );
  const label = cta.buttonText;
  const buttonWidth = Math.min(900, Math.max(360, textWidth(label, 40, 700) + 120));
  boxes.push(rect(MARGIN, 730, buttonWidth, 100, palette.accent, { radius: 50, link: cta.buttonUrl }));
  boxes.push(
    textBox(ctx, 'body', label, MARGIN, 730, buttonWidth, 100, {
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
      textBox(ctx, 'body', line.text, MARGIN, 880 + i * 56, 1200, 50, {
        size: 32,
        color: onPrimary,
        maxLines: 1,
        link: line.link,
      }),
    );
  }
  if (branding.name) {
    boxes.push(
      textBox(ctx, 'body', branding.name, PAGE.width - MARGIN - 800, 1000, 800, 50, {
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
