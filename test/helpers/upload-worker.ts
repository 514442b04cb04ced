// The thread `uploadFromAnotherThread` (upload-thread.ts) sends one multipart upload from.
import { parentPort, workerData } from 'node:worker_threads';
import type { PostedResponse } from './upload-thread.ts';

const { url, cookie, name, type, bytes } = workerData as {
  url: string;
  cookie: string;
  name: string;
  type: string;
  bytes: Uint8Array<ArrayBuffer>;
};

const form = new FormData();
form.append('file', new Blob([bytes], { type }), name);
const response = await fetch(url, { method: 'POST', headers: cookie ? { cookie } : {}, body: form });
const posted: PostedResponse = {
  status: response.status,
  headers: [...response.headers],
  text: await response.text(),
};
parentPort!.postMessage(posted);
