import path from 'node:path';
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BrandingData, BrandingOutput } from '../branding/branding-output.ts';
import { byteSize } from '../byte-size.ts';
import type { DeckSnapshot, ExportSlide } from '../ports/deck-exporter.ts';
import { isSafeKey } from '../ports/object-storage.ts';
import type { Services } from '../services.ts';
import type { ProductData } from '../slides/product-data.ts';

/** A deck of more slides is not exported (api.md: 400 at the start; failed when it grew since). */
export const MAX_EXPORT_SLIDES = 200;

/** Objects copied at once from the object store into an export's work directory. */
const COPIES_AT_ONCE = 4;

/** The deck as read, with the object keys of what it shows (not yet copied). */
export interface DeckRead {
  deckName: string;
  branding: BrandingOutput | null;
  logoKey: string | null;
  intro: { title: string | null; script: string; audioKey: string | null } | null;
  slides: (Omit<ExportSlide, 'heroImagePath' | 'audioPath'> & {
    heroKey: string | null;
    audioKey: string | null;
  })[];
  faqs: { question: string; answer: string; audioKey: string | null }[];
  /** More slides than MAX_EXPORT_SLIDES (only the first MAX_EXPORT_SLIDES + 1 are read). */
  tooManySlides: boolean;
}

/**
 * The deck as it is now, read in ONE transaction at repeatable read (api.md: the export shows the
 * deck as it was when its work started; edits committed meanwhile are not half in it). Null when
 * the deck is gone.
 */
export async function readDeck(
  em: EntityManager,
  deckId: string,
  includeFaqs: boolean,
): Promise<DeckRead | null> {
  return em.transactional(
    async (tx) => {
      const [deck] = await tx.execute<{ name: string }[]>('select name from deck where id = ?', [deckId]);
      if (!deck) return null;
      const [branding] = await tx.execute<{ data: BrandingData; updated_at: Date }[]>(
        'select data, updated_at from deck_branding where deck_id = ?',
        [deckId],
      );
      const [intro] = await tx.execute<{ title: string | null; script: string; audio_key: string | null }[]>(
        'select title, script, audio_key from deck_intro where deck_id = ?',
        [deckId],
      );
      const slides = await tx.execute<
        {
          id: string;
          slide_id: string;
          title: string | null;
          bullets: string[];
          slide_context: string | null;
          narration_script: string | null;
          slide_type: ExportSlide['slideType'];
          product_data: ProductData | null;
          hero_img: string | null;
          audio_url: string | null;
        }[]
      >(
        `select id, slide_id, title, bullets, slide_context, narration_script, slide_type, product_data,
                hero_img, audio_url
           from slide where deck_id = ? order by order_index limit ?`,
        [deckId, MAX_EXPORT_SLIDES + 1],
      );
      const faqs = includeFaqs
        ? await tx.execute<{ user_question: string; canned_answer: string; audio_key: string | null }[]>(
            'select user_question, canned_answer, audio_key from faq where deck_id = ? order by created_at, id',
            [deckId],
          )
        : [];
      return {
        deckName: deck.name,
        branding: branding
          ? { ...branding.data, updatedAt: new Date(branding.updated_at).toISOString() }
          : null,
        logoKey: branding?.data.logo ?? null,
        intro: intro ? { title: intro.title, script: intro.script, audioKey: intro.audio_key } : null,
        slides: slides.slice(0, MAX_EXPORT_SLIDES).map((slide) => ({
          id: slide.id,
          slideId: slide.slide_id,
          title: slide.title,
          bullets: slide.bullets ?? [],
          slideContext: slide.slide_context,
          narrationScript: slide.narration_script,
          slideType: slide.slide_type,
          productData: slide.product_data,
          heroKey: slide.hero_img,
          audioKey: slide.audio_url,
        })),
        faqs: faqs.map((faq) => ({
          question: faq.user_question,
          answer: faq.canned_answer,
          audioKey: faq.audio_key,
        })),
        tooManySlides: slides.length > MAX_EXPORT_SLIDES,
      };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

/** How many pages the deck makes: the intro, each slide, each FAQ, the closing page. */
export function pagesOf(read: DeckRead): number {
  return (read.intro ? 1 : 0) + read.slides.length + read.faqs.length + 1;
}

/**
 * The snapshot a renderer reads: the deck, with each image and audio object it shows copied from
 * the object store into `workDir` (renderers read local files only). Bounded: an object larger
 * than its kind may be (IMAGE_MAX_BYTES, SPEECH_MAX_AUDIO_BYTES), missing, outside the
 * organization's namespace or unreadable is left out, and `warnings` says which.
 */
export async function copyDeckObjects(
  services: Services,
  organizationId: string,
  read: DeckRead,
  workDir: string,
  warnings: string[],
  signal: AbortSignal,
): Promise<DeckSnapshot> {
  const { storage, settings, logger } = services;
  const limits = { image: settings.uploads.imageMaxBytes, audio: settings.speech.maxAudioBytes };
  const copies: (() => Promise<void>)[] = [];
  /** Each copy's warning, in the deck's order whatever order the copies end in. */
  const notes: (string | undefined)[] = [];
  let files = 0;
  /** Queues a copy; `set` gets the local path once it is there. */
  const copy = (key: string | null, kind: 'image' | 'audio', what: string, set: (file: string) => void) => {
    if (!key) return;
    const file = path.join(workDir, `${kind}-${++files}${safeExtension(key)}`);
    const place = copies.length;
    const warn = (warning: string) => {
      notes[place] = `${what}: left out (${warning})`;
    };
    copies.push(async () => {
      signal.throwIfAborted();
      if (!key.startsWith(`org/${organizationId}/`) || !isSafeKey(key)) {
        warn('it does not name an object of this organization');
        return;
      }
      try {
        const copied = await storage.download(key, file, limits[kind]);
        if (copied.ok) set(file);
        else if (copied.reason === 'missing') warn('its object is missing');
        else warn(`larger than ${byteSize(limits[kind])}`);
      } catch (error) {
        logger.warn({ err: error, key }, 'export: an object could not be copied');
        warn('its object could not be read');
      }
    });
  };

  const snapshot: DeckSnapshot = {
    deckName: read.deckName,
    branding: read.branding,
    logoPath: null,
    intro: read.intro && { title: read.intro.title, script: read.intro.script, audioPath: null },
    slides: read.slides.map(({ heroKey: _h, audioKey: _a, ...slide }) => ({
      ...slide,
      heroImagePath: null,
      audioPath: null,
    })),
    faqs: read.faqs.map((faq) => ({ question: faq.question, answer: faq.answer, audioPath: null })),
  };
  copy(read.logoKey, 'image', 'The logo', (file) => {
    snapshot.logoPath = file;
  });
  copy(read.intro?.audioKey ?? null, 'audio', 'The intro’s narration', (file) => {
    snapshot.intro!.audioPath = file;
  });
  read.slides.forEach((slide, index) => {
    const target = snapshot.slides[index]!;
    copy(slide.heroKey, 'image', `Slide ${slide.slideId}’s image`, (file) => {
      target.heroImagePath = file;
    });
    copy(slide.audioKey, 'audio', `Slide ${slide.slideId}’s narration`, (file) => {
      target.audioPath = file;
    });
  });
  read.faqs.forEach((faq, index) => {
    copy(faq.audioKey, 'audio', `FAQ ${index + 1}’s spoken answer`, (file) => {
      snapshot.faqs[index]!.audioPath = file;
    });
  });
  // A few at a time, in order: the object store answers each copy in its own time.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(COPIES_AT_ONCE, copies.length) }, async () => {
      while (next < copies.length) await copies[next++]!();
    }),
  );
  for (const note of notes) if (note) warnings.push(note);
  return snapshot;
}

/** The object's extension, when it is a plain one (renderers detect a file's type by its content anyway). */
function safeExtension(key: string): string {
  const extension = path.extname(key).toLowerCase();
  return /^\.[a-z0-9]{1,5}$/.test(extension) ? extension : '';
}
