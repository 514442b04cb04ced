import { z } from 'zod';
import { cta, palette } from '../../domain/branding/branding-output.ts';
import { objectKey } from '../object-key.schema.ts';
import { emailText, text } from '../shared.schema.ts';

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
  email: emailText().optional(),
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
