import { type FileHandle, open, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { WARM_WORKER_IDLE_MS } from '../warm-workers.ts';
import { type FileIdentity, identityOf, sameFile } from './file-identity.ts';
import { activeDataSegments, type DataSegment } from './wasm-data-segments.ts';

/** espeak-ng's compiled module, from which each speaking thread makes its instance (espeak-instance.ts). */
export interface EspeakModule {
  module: WebAssembly.Module;
  /**
   * Its file's descriptor: a thread reads the voices' data back from it to reset its instance.
   * A number, to be posted to threads: whoever compiled the module keeps its handle open.
   */
  file: number;
  /** What instantiation writes into memory: the file's active data segments. */
  segments: DataSegment[];
  /** The file as compiled: a thread refuses to reset its instance from a file changed since. */
  identity: FileIdentity;
}

/**
 * Compiles the module in `file`, here, in the thread that asks (the service's main thread):
 * compiled in each speaking thread instead, its 18 MB of bytes were freed into that thread's
 * allocator, which kept them resident (+38 MB a thread). Asynchronous: V8 compiles off the event
 * loop (only a worker terminated during such a compile aborted the process, see speech-worker.ts).
 */
export async function compileEspeak(file: FileHandle): Promise<EspeakModule> {
  const identity = identityOf(await file.stat());
  const { size } = identity;
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
  return { module, file: file.fd, segments, identity };
}

const WASM_PATH = createRequire(import.meta.url)
  .resolve('espeak-ng')
  .replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
/**
 * The package's module file as last compiled, open for the life of the process (like the code it
 * holds). Opened anew only when the file on disk is another (an upgrade): the handle before stays
 * open, for threads made from it may still read it.
 */
let packageFile: { handle: FileHandle; identity: FileIdentity } | undefined;
let compiling: Promise<EspeakModule> | undefined;
/** Held while speech is in use: let go as long after the last answer as a warm thread stays. */
let held: EspeakModule | undefined;
let release: NodeJS.Timeout | undefined;

async function compilePackageFile(): Promise<EspeakModule> {
  const onDisk = identityOf(await stat(WASM_PATH));
  if (!packageFile || !sameFile(packageFile.identity, onDisk)) {
    const handle = await open(WASM_PATH, 'r');
    packageFile = { handle, identity: identityOf(await handle.stat()) };
  }
  return compileEspeak(packageFile.handle);
}

/**
 * espeak-ng's module, compiled from the package's file when first asked for, and again once let go
 * or once the file on disk has changed (threads refuse to reset from a changed file).
 */
export async function loadEspeakModule(): Promise<EspeakModule> {
  const current = held;
  if (current && !sameFile(identityOf(await stat(WASM_PATH)), current.identity) && held === current)
    held = undefined;
  // A failed compile (the file unreadable) is not kept: the next answer tries again.
  if (!held) {
    compiling ??= compilePackageFile().finally(() => {
      compiling = undefined;
    });
  }
  const loaded = held ?? (await compiling!);
  held = loaded;
  clearTimeout(release);
  // The threads hold their own reference (V8 shares one compiled module among them) while they live.
  release = setTimeout(() => {
    held = undefined;
  }, WARM_WORKER_IDLE_MS).unref();
  return loaded;
}
