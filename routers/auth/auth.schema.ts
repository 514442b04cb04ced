import { z } from 'zod';
import { text } from '../shared.schema.ts';

export const emailAddress = z
  .email()
  .max(320)
  .transform((email) => email.toLowerCase());

export const logInInput = z.strictObject({
  email: emailAddress,
  password: text().min(1).max(1024),
});
