// Runs work over many items with a bound on how many run at once: many disks probed at
// once would hold a 16 MiB buffer each, and fight over the same seek arm.

/** Runs `fn` over `items`, at most `limit` at a time, keeping order; the first error wins. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const errors: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (next < items.length && errors.length === 0) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length > 0) throw errors[0];
  return out;
}
