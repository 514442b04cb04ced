import { z } from 'zod';
import { isStorableName } from '../domain/uploaded-file.ts';

/** The input of a multipart upload procedure: one part `file`, whose name can be stored. */
export const uploadedFileInput = z.object({
  file: z.file().refine((file) => isStorableName(file.name), {
    message: 'the file name must not contain the NUL character or an unpaired UTF-16 surrogate',
  }),
});
