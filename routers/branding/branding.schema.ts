import { z } from 'zod';
import type { DeckBranding } from '../../entities/DeckBranding.ts';
import { objectKey } from '../object-key.schema.ts';
import { text } from '../shared.schema.ts';

const hexColor = z
  .string()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour: #rgb or #rrggbb')
  .meta({ example: '#1a73e8' });

const palette = z.strictObject({
  primary: hexColor,
  primaryLight: hexColor,
  accent: hexColor,
  neutral: hexColor,
  text: hexColor,
});

const cta = z.strictObject({
  headline: text().trim().min(1).max(200),
  body: text().trim().max(2000),
  buttonText: text().trim().min(1).max(100),
  buttonUrl: z
    .url({ protocol: /^(https?|mailto|tel)$/, error: 'must be an http(s), mailto: or tel: URL' })
    .max(2048),
});

/** Font roles (`heading`, `body`, …) to font family names. */
const fonts = z
  .record(
    z.string().regex(/^[a-zA-Z][\w-]{0,49}$/, 'must be a font role such as heading'),
    text().trim().min(1).max(200),
  )
  .refine((value) => Object.keys(value).length <= 10, 'at most 10 font roles');

const contact = z.strictObject({
  phone: text()
    .trim()
    .regex(/^\+?[\d\s().-]{3,40}$/, 'must be a phone number')
    .optional(),
  email: z.email().max(320).optional(),
});

/** PUT body: creates or replaces the branding; absent optional fields become null. */
export const brandingInput = z.strictObject({
  palette,
  cta,
  name: text().trim().max(200).nullable().optional(),
  logo: objectKey.nullable().optional(),
  avatar: objectKey.nullable().optional(),
  chatName: text().trim().max(100).nullable().optional(),
  chatGreeting: text().trim().max(1000).nullable().optional(),
  fonts: fonts.nullable().optional(),
  contact: contact.nullable().optional(),
});

export type BrandingInput = z.infer<typeof brandingInput>;

export const brandingOutput = z
  .object({
    name: z.string().nullable(),
    palette,
    cta,
    logo: z.string().nullable(),
    avatar: z.string().nullable(),
    chatName: z.string().nullable(),
    chatGreeting: z.string().nullable(),
    fonts: z.record(z.string(), z.string()).nullable(),
    contact: z.object({ phone: z.string().optional(), email: z.string().optional() }).nullable(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Branding' });

export type BrandingOutput = z.infer<typeof brandingOutput>;

export const brandingResponse = z.object({ branding: brandingOutput.nullable() });

/** The stored form: every field present, null when not given. */
export function normaliseBranding(input: BrandingInput): Omit<BrandingOutput, 'updatedAt'> {
  return {
    name: input.name ?? null,
    palette: input.palette,
    cta: input.cta,
    logo: input.logo ?? null,
    avatar: input.avatar ?? null,
    chatName: input.chatName ?? null,
    chatGreeting: input.chatGreeting ?? null,
    fonts: input.fonts ?? null,
    contact: input.contact ?? null,
  };
}

export function toBrandingOutput(branding: DeckBranding): BrandingOutput {
  return {
    ...(branding.data as Omit<BrandingOutput, 'updatedAt'>),
    updatedAt: branding.updatedAt.toISOString(),
  };
}
