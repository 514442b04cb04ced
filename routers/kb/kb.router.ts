import { router } from '../trpc.ts';
import { completeUpload } from './complete-upload.ts';
import { deleteDocument } from './delete-document.ts';
import { getDocument } from './get-document.ts';
import { initUpload } from './init-upload.ts';
import { listDocuments } from './list-documents.ts';

/** Router keys are the procedures' names: `kb.initUpload`. */
export const kbRouter = router({ initUpload, completeUpload, listDocuments, getDocument, deleteDocument });
