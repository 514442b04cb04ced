/**
 * Writes items in batches with no timer: the first item is written at once, and those added
 * while a write is under way go together in the next one (group commit), so batches grow with
 * the load and a lone item waits for nothing. `add` resolves once its batch is written, with
 * the write's answer for that item (the same position in the array it returns; none for a
 * write that answers nothing), or rejects with that batch's error.
 */
export function groupCommit<Item, Result = void>(
  // biome-ignore lint/suspicious/noConfusingVoidType: a write that answers nothing is a Promise<void>
  write: (items: Item[]) => Promise<Result[] | void>,
  maxBatch: number,
): (item: Item) => Promise<Result> {
  const waiting: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      try {
        const results = await write(batch.map(({ item }) => item));
        for (const [i, { resolve }] of batch.entries()) resolve(results?.[i] as Result);
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    writing = false;
  };
  return (item) =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
