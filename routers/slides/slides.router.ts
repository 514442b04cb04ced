import { router } from '../trpc.ts';
import { createSlide } from './create-slide.ts';
import { deleteSlide } from './delete-slide.ts';
import { getProductData } from './get-product-data.ts';
import { getSlide } from './get-slide.ts';
import { getSlideAudio } from './get-slide-audio.ts';
import { listSlides } from './list-slides.ts';
import { putProductData } from './put-product-data.ts';
import { reorderSlides } from './reorder-slides.ts';
import { updateSlide } from './update-slide.ts';

/** Router keys are the procedures' names (file, export and key agree): `slides.createSlide`. */
export const slidesRouter = router({
  createSlide,
  listSlides,
  getSlide,
  updateSlide,
  deleteSlide,
  reorderSlides,
  getProductData,
  putProductData,
  getSlideAudio,
});
