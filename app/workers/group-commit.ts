/**
 * Writes items in batches with no timer: the first item is written at once, and those added
 * while a write is under way go together in the next one (group commit), so batches grow with
 * the load and a lone item waits for nothing. `add` resolves once its batch is written, or
 * rejects with that batch's error.
 */
export function groupCommit<Item>(
  write: (items: Item[]) => Promise<void>,
  maxBatch: number,
): (item: Item) => Promise<void> {
  const waiting: { item: Item; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      try {
        await write(batch.map(({ item }) => item));
        for (const { resolve } of batch) resolve();
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    writing = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
