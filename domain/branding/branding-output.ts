import { z } from 'zod';
import type { DeckBranding } from '../../entities/DeckBranding.ts';
import { text } from '../text.ts';

const hexColor = z
  .string()
  .regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour: #rgb or #rrggbb')
  .meta({ example: '#1a73e8' });

/** The deck's colours: one schema for what a PUT sends and what every answer shows. */
export const palette = z.strictObject({
  primary: hexColor,
  primaryLight: hexColor,
  accent: hexColor,
  neutral: hexColor,
  text: hexColor,
});

/** The call to action: one schema for what a PUT sends and what every answer shows. */
export const cta = z.strictObject({
  headline: text().trim().min(1).max(200),
  body: text().trim().max(2000),
  buttonText: text().trim().min(1).max(100),
  buttonUrl: z
    .url({ protocol: /^(https?|mailto|tel)$/, error: 'must be an http(s), mailto: or tel: URL' })
    .max(2048),
});

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

/** The stored form: every field present, null when not given. */
export type BrandingData = Omit<BrandingOutput, 'updatedAt'>;

export const brandingResponse = z.object({ branding: brandingOutput.nullable() });

export function toBrandingOutput(branding: DeckBranding): BrandingOutput {
  return { ...(branding.data as BrandingData), updatedAt: branding.updatedAt.toISOString() };
}
