import { z } from 'zod';
import { emailText, text } from '../shared.schema.ts';

export const emailAddress = emailText().transform((email) => email.toLowerCase());

export const logInInput = z.strictObject({
  email: emailAddress,
  password: text().min(1).max(1024),
});

/** A new password, wherever one is set (operators' create-user and set-password, POST /users, POST /auth/password). */
export const password = text().min(8, 'must be at least 8 characters').max(1024);
