/**
 * A value built on first use, then kept: module-level values a one-shot CLI call may never need
 * (zod schemas, mostly) cost every call their construction otherwise (bench/README.md).
 */
export function lazy<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}

/**
 * `compute` with its answers remembered by key, all forgotten at once when `limit` keys are held
 * or the answers' `weigh`t passes `maxWeight` (a bound on memory without a least-recently-used
 * list's bookkeeping: the searches' folds and redactions repeat the same few thousand texts).
 */
export function remembered<V>(
  compute: (key: string) => V,
  limit: number,
  weight?: { weigh: (value: V, key: string) => number; max: number },
): (key: string) => V {
  const answers = new Map<string, V>();
  let held = 0;
  return (key) => {
    let value = answers.get(key);
    if (value === undefined) {
      value = compute(key);
      const weighs = weight?.weigh(value, key) ?? 0;
      held += weighs;
      if (answers.size >= limit || (weight !== undefined && held > weight.max)) {
        answers.clear();
        held = weighs;
      }
      answers.set(key, value);
    }
    return value;
  };
}
