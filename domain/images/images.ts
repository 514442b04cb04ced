import { Image } from '../../entities/Image.ts';
import { newId } from '../../entities/ids.ts';
import { byteSize } from '../byte-size.ts';
import type { DomainContext } from '../context.ts';
import { badRequest, notFound, payloadTooLarge, unsupportedMediaType } from '../errors.ts';
import { recordEvent } from '../events/events.ts';
import { objectKeyFor } from '../object-keys.ts';
import { lockRow } from '../row-lock.ts';
import { bytesOf } from '../uploaded-file.ts';
import { type DetectedImage, detectImage } from './detect-image.ts';
import { type ImageOutput, imageEventPayload, toImageOutput } from './image-output.ts';

/**
 * Stores an image of the organization's library, judged by its bytes (never its name):
 * the object first, then the row and its event; a failure after the object was stored
 * deletes it again, so a failed request leaves nothing behind.
 */
export async function uploadImage(ctx: DomainContext, file: File): Promise<ImageOutput> {
  const { em, services, auth } = ctx;
  const limit = services.settings.uploads.imageMaxBytes;
  if (file.size > limit) throw payloadTooLarge(`Images may be at most ${byteSize(limit)}`);
  const bytes = await bytesOf(file);
  let detected: DetectedImage | null;
  try {
    detected = await detectImage(bytes);
  } catch {
    throw badRequest('The image could not be read: it looks damaged', [
      { path: ['file'], message: 'unreadable image' },
    ]);
  }
  if (!detected) {
    throw unsupportedMediaType(
      'Only PNG, JPEG, GIF, WebP and SVG images are accepted (judged by the content, not the name)',
    );
  }

  const id = newId();
  const filename = file.name.slice(0, 255) || 'image';
  const objectKey = objectKeyFor(auth.organizationId, 'images', id, filename);
  await services.storage.put(objectKey, bytes, detected.mimeType);
  try {
    const image = em.create(Image, {
      id,
      organization: auth.organizationId,
      filename,
      objectKey,
      mimeType: detected.mimeType,
      size: bytes.length,
      width: detected.width,
      height: detected.height,
      createdAt: new Date(),
    });
    const output = await toImageOutput(image, services);
    recordEvent(em, auth, 'image.uploaded', { aggregateId: id, payload: imageEventPayload(image) });
    await em.flush();
    return output;
  } catch (error) {
    await services.storage.delete(objectKey).catch(() => {});
    throw error;
  }
}

/** The organization's images, newest first. */
export async function listImages({ em, services, auth }: DomainContext): Promise<{ images: ImageOutput[] }> {
  const images = await em.find(
    Image,
    { organization: auth.organizationId },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return { images: await Promise.all(images.map((image) => toImageOutput(image, services))) };
}

/** One image of the caller's organization, with a signed address to fetch it. */
export async function getImage({ em, services, auth }: DomainContext, imageId: string): Promise<ImageOutput> {
  const image = await em.findOne(Image, { id: imageId, organization: auth.organizationId });
  if (!image) throw notFound('Image', imageId);
  return toImageOutput(image, services);
}

export async function deleteImage(
  { em, services, auth }: DomainContext,
  imageId: string,
): Promise<{ success: true }> {
  // Locked: of two concurrent deletes one answers 404, and one event is written.
  const image = await em.transactional(async (em) => {
    const owned = await em.findOne(Image, { id: imageId, organization: auth.organizationId });
    const locked = owned && (await lockRow(em, Image, owned.id));
    if (!locked) throw notFound('Image', imageId);
    recordEvent(em, auth, 'image.deleted', {
      aggregateId: locked.id,
      payload: imageEventPayload(locked),
    });
    em.remove(locked);
    await em.flush();
    return locked;
  });
  // The row is gone first: a failure here leaves an unreferenced file, never a broken image.
  await services.storage.delete(image.objectKey);
  return { success: true as const };
}
