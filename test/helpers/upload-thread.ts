import { Worker } from 'node:worker_threads';
import type { HttpClient, HttpResponse } from './http-client.ts';

/** What `upload-worker.ts` answers: the response, as plain data a thread can post. */
export interface PostedResponse {
  status: number;
  headers: [string, string][];
  text: string;
}

/**
 * `client.upload(…)`, sent from a worker thread of its own, as a client on another machine
 * would send it: reading the file into the request and writing it to the socket (tens of
 * milliseconds of CPU for megabytes) is then not work of this thread, on which the app runs.
 */
export function uploadFromAnotherThread(
  client: HttpClient,
  path: string,
  file: { name: string; bytes: Buffer; type?: string },
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./upload-worker.ts', import.meta.url), {
      workerData: {
        url: new URL(path, client.baseUrl).toString(),
        cookie: client.cookieHeader,
        name: file.name,
        type: file.type ?? 'application/octet-stream',
        bytes: file.bytes,
      },
    });
    worker.once('message', (posted: PostedResponse) => {
      void worker.terminate();
      let body: unknown;
      try {
        body = posted.text ? JSON.parse(posted.text) : undefined;
      } catch {
        body = undefined;
      }
      resolve({ status: posted.status, headers: new Headers(posted.headers), text: posted.text, body });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the upload thread stopped (exit code ${code})`)));
  });
}
