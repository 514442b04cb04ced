import { router } from '../trpc.ts';
import { deleteImage } from './delete-image.ts';
import { listImages } from './list-images.ts';
import { uploadImage } from './upload-image.ts';

export const imagesRouter = router({ upload: uploadImage, list: listImages, delete: deleteImage });
