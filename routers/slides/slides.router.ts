import { router } from '../trpc.ts';
import { createSlide } from './create-slide.ts';
import { deleteSlide } from './delete-slide.ts';
import { getProductData } from './get-product-data.ts';
import { getSlideAudio } from './get-slide-audio.ts';
import { listSlides } from './list-slides.ts';
import { putProductData } from './put-product-data.ts';
import { reorderSlides } from './reorder-slides.ts';
import { updateSlide } from './update-slide.ts';

export const slidesRouter = router({
  create: createSlide,
  list: listSlides,
  update: updateSlide,
  delete: deleteSlide,
  reorder: reorderSlides,
  getProductData,
  putProductData,
  audio: getSlideAudio,
});
