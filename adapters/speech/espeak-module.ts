import { type FileHandle, open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { WARM_WORKER_IDLE_MS } from '../warm-workers.ts';
import { activeDataSegments, type DataSegment } from './wasm-data-segments.ts';

/** espeak-ng's compiled module, from which each speaking thread makes its instance (espeak-instance.ts). */
export interface EspeakModule {
  module: WebAssembly.Module;
  /** Its file's descriptor: a thread reads the voices' data back from it to reset its instance. */
  file: number;
  /** What instantiation writes into memory: the file's active data segments. */
  segments: DataSegment[];
  /** The file as compiled: a thread refuses to reset its instance from a file changed since. */
  size: number;
  mtimeMs: number;
}

/**
 * Compiles the module in `file`, here, in the thread that asks (the service's main thread):
 * compiled in each speaking thread instead, its 18 MB of bytes were freed into that thread's
 * allocator, which kept them resident (+38 MB a thread). Asynchronous: V8 compiles off the event
 * loop (only a worker terminated during such a compile aborted the process, see speech-worker.ts).
 */
export async function compileEspeak(file: FileHandle): Promise<EspeakModule> {
  const { size, mtimeMs } = await file.stat();
  const bytes = new Uint8Array(size);
  for (let done = 0; done < size; ) {
    const { bytesRead } = await file.read(bytes, done, size - done, done);
    if (bytesRead === 0) throw new Error("espeak-ng's module file ended early");
    done += bytesRead;
  }
  const module = await WebAssembly.compile(bytes);
  const segments = activeDataSegments(bytes);
  // V8 keeps its own copy; these bytes are freed now rather than at some later collection.
  bytes.buffer.transfer(0);
  return { module, file: file.fd, segments, size, mtimeMs };
}

/** The package's module file, opened once for the life of the process (like the code it holds). */
let packageFile: Promise<FileHandle> | undefined;
let compiling: Promise<EspeakModule> | undefined;
/** Held while speech is in use: let go as long after the last answer as a warm thread stays. */
let held: EspeakModule | undefined;
let release: NodeJS.Timeout | undefined;

/** espeak-ng's module, compiled from the package's file when first asked for (and again once let go). */
export async function loadEspeakModule(): Promise<EspeakModule> {
  // A file rewritten in place (threads then refuse to reset from it) is compiled afresh.
  if (held && packageFile) {
    const { size, mtimeMs } = await (await packageFile).stat();
    if (size !== held.size || mtimeMs !== held.mtimeMs) held = undefined;
  }
  if (!held) {
    compiling ??= (async () => {
      packageFile ??= open(
        createRequire(import.meta.url)
          .resolve('espeak-ng')
          .replace(/espeak-ng\.js$/, 'espeak-ng.wasm'),
        'r',
      );
      return compileEspeak(await packageFile);
    })().finally(() => {
      compiling = undefined;
    });
    held = await compiling;
  }
  clearTimeout(release);
  // The threads hold their own reference (V8 shares one compiled module among them) while they live.
  release = setTimeout(() => {
    held = undefined;
  }, WARM_WORKER_IDLE_MS).unref();
  return held;
}
