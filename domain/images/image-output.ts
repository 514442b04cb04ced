import { z } from 'zod';
import type { Image } from '../../entities/Image.ts';
import { downloadUrlFor } from '../object-keys.ts';
import type { Services } from '../services.ts';

/** An image as every route answers it (its event carries it without `url`). */
export const imageOutput = z
  .object({
    id: z.uuid(),
    organizationId: z.uuid(),
    filename: z.string(),
    objectKey: z.string(),
    mimeType: z.string(),
    size: z.int(),
    url: z
      .url()
      .meta({ description: 'A signed address that answers GET with the image, for a limited time' }),
    createdAt: z.iso.datetime(),
    width: z.int(),
    height: z.int(),
  })
  .meta({ id: 'Image' });

export type ImageOutput = z.infer<typeof imageOutput>;

export async function toImageOutput(image: Image, services: Services): Promise<ImageOutput> {
  return {
    ...imageEventPayload(image),
    url: (await downloadUrlFor(services, image.objectKey, image.mimeType))!,
  };
}

/** What an image event carries: the image without its signed address (it expires; the key stays). */
export function imageEventPayload(image: Image): Omit<ImageOutput, 'url'> {
  return {
    id: image.id,
    organizationId: image.organization.id,
    filename: image.filename,
    objectKey: image.objectKey,
    mimeType: image.mimeType,
    size: image.size,
    createdAt: image.createdAt.toISOString(),
    width: image.width,
    height: image.height,
  };
}
