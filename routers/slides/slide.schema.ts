import { z } from 'zod';
import { SLIDE_TYPES } from '../../entities/Slide.ts';
import { objectKey } from '../object-key.schema.ts';
import { text } from '../shared.schema.ts';

export const slideIdParam = z.object({ slideId: z.uuid() });

/** The human-readable id of a slide within its deck. */
export const humanSlideId = z
  .string()
  .regex(/^slide-[1-9]\d{0,8}$/, 'must have the form slide-<n> (n a positive integer)');

/**
 * The fields of a slide a create may set and a PATCH may change (a new field is added here once;
 * the domain's `SlideChanges` are the entity's same properties).
 */
export const slideFields = z.object({
  title: text().max(500).nullable(),
  narrationScript: text().max(20_000).nullable(),
  bullets: z.array(text().max(1000)).max(50),
  slideContext: text().max(20_000).nullable(),
  audioUrl: objectKey.nullable(),
  heroImg: objectKey.nullable(),
});

/** The same fields, each optional: what a create may leave out and a PATCH may change. */
export const optionalSlideFields = slideFields.partial().shape;

export const slideType = z.enum(SLIDE_TYPES);
