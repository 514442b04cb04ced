import { describe, expect, it } from 'vitest';
import { groupCommit } from '../domain/group-commit.ts';

/** A write that can be held open, as a slow transaction is, and records every batch it gets. */
function heldWrite() {
  const batches: number[][] = [];
  let open: (() => void) | undefined;
  let fail: Error | undefined;
  const write = async (items: number[]) => {
    batches.push(items);
    if (fail) throw fail;
    await new Promise<void>((resolve) => {
      open = resolve;
    });
  };
  return {
    batches,
    write,
    release: () => open?.(),
    failNext: (error: Error) => {
      fail = error;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('groupCommit', () => {
  it('writes a lone item at once, and gathers those that come during a write into the next batch', async () => {
    const w = heldWrite();
    const add = groupCommit(w.write, 10);
    const first = add(1);
    await settle();
    expect(w.batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((n) => add(n));
    await settle();
    expect(w.batches).toEqual([[1]]);
    w.release();
    await first;
    await settle();
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
    w.release();
    await Promise.all(rest);
  });

  it('writes at most maxBatch items at once: at the limit one batch, past it two', async () => {
    const w = heldWrite();
    const add = groupCommit(w.write, 3);
    const first = add(0);
    await settle();
    const atLimit = [1, 2, 3].map((n) => add(n));
    w.release();
    await first;
    await settle();
    expect(w.batches.at(-1)).toEqual([1, 2, 3]);
    const pastLimit = [4, 5, 6, 7].map((n) => add(n));
    w.release();
    await Promise.all(atLimit);
    await settle();
    expect(w.batches.at(-1)).toEqual([4, 5, 6]);
    w.release();
    await settle();
    expect(w.batches.at(-1)).toEqual([7]);
    w.release();
    await Promise.all(pastLimit);
    expect(w.batches.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('rejects the items of a failed batch only; the next batch is written', async () => {
    const w = heldWrite();
    const add = groupCommit(w.write, 10);
    const first = add(1);
    await settle();
    const failing = [add(2), add(3)];
    w.failNext(new Error('database down'));
    w.release();
    await first;
    for (const item of failing) await expect(item).rejects.toThrow('database down');
    w.failNext(undefined as unknown as Error);
    const after = add(4);
    await settle();
    w.release();
    await after;
    expect(w.batches).toEqual([[1], [2, 3], [4]]);
  });
});
