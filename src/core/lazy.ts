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
