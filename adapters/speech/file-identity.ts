import type { Stats } from 'node:fs';

/** What tells one version of a file from another: a file replaced (rename) or rewritten in place. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Set by the kernel on every change, whatever a writer does to the modification time. */
  ctimeMs: number;
}

export const identityOf = ({ dev, ino, size, mtimeMs, ctimeMs }: Stats): FileIdentity => ({
  dev,
  ino,
  size,
  mtimeMs,
  ctimeMs,
});

export const sameFile = (a: FileIdentity, b: FileIdentity): boolean =>
  a.dev === b.dev &&
  a.ino === b.ino &&
  a.size === b.size &&
  a.mtimeMs === b.mtimeMs &&
  a.ctimeMs === b.ctimeMs;
