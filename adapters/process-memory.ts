import { readFile } from 'node:fs/promises';

/**
 * Resident memory of other processes, read from Linux's /proc (Node has no API for a process it
 * did not start as a thread). Elsewhere /proc is absent and these answer 0 and no children: a
 * caller then relies on its other bounds alone.
 */

/** A process's resident set size in bytes (VmRSS), or 0 once it is gone or where /proc is not. */
export async function residentBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const at = status.indexOf('VmRSS:');
    return at < 0 ? 0 : Number.parseInt(status.slice(at + 'VmRSS:'.length), 10) * 1024;
  } catch {
    return 0;
  }
}

/**
 * The processes `pid` started from its main thread (Linux lists each thread's children apart;
 * Node starts a child process from the thread that asks, and the processes watched here, the
 * service, a render process and ffmpeg, start theirs from their main thread).
 */
export async function childrenOf(pid: number): Promise<number[]> {
  try {
    const list = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim();
    return list ? list.split(' ').map(Number) : [];
  } catch {
    return [];
  }
}

/** `pid` and every process under it, at most `limit` of them (a fork bomb is not walked whole). */
export async function processTree(pid: number, limit = 64): Promise<number[]> {
  const tree = [pid];
  for (let i = 0; i < tree.length && tree.length < limit; i++) {
    tree.push(...(await childrenOf(tree[i]!)));
  }
  return tree.slice(0, limit);
}

/** The resident memory of `pid` and the processes under it, together. */
export async function treeResidentBytes(pid: number): Promise<number> {
  const sizes = await Promise.all((await processTree(pid)).map(residentBytes));
  return sizes.reduce((sum, size) => sum + size, 0);
}
