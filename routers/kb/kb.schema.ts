import { z } from 'zod';
import { integer, text } from '../shared.schema.ts';

export const documentIdInput = z.object({ documentId: z.uuid() });

export const initUploadInput = z.strictObject({
  filename: text().trim().min(1).max(255),
  contentType: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/,
      'must be a media type such as application/pdf',
    ),
  sizeBytes: integer('bigint').min(1, 'must be at least 1 byte'),
  displayName: text().trim().min(1).max(255).optional(),
});
