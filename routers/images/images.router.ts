import { router } from '../trpc.ts';
import { deleteImage } from './delete-image.ts';
import { getImage } from './get-image.ts';
import { listImages } from './list-images.ts';
import { uploadImage } from './upload-image.ts';

/** Router keys are the procedures' names: `images.uploadImage`. */
export const imagesRouter = router({ uploadImage, listImages, getImage, deleteImage });
