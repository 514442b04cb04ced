// Stands in for zod/v4/core in the bundled declarations: the one type of zod's that a
// procedure's input names (an uploaded file), as zod declares it, so that zod stays the server's.
type _File = typeof globalThis extends { File: infer F extends new (...args: any[]) => any }
  ? InstanceType<F>
  : Record<never, never>;
export interface File extends _File {
  readonly type: string;
  readonly size: number;
}
