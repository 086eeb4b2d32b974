/**
 * Items a test expects to be there, read under `noUncheckedIndexedAccess`: each helper gives the
 * item typed as present, or throws a message naming what is missing, so the test fails on the
 * missing item itself rather than on a TypeError a line later.
 */

/** `items[index]` (a negative index counts from the end); throws when there is none there. */
export function at<T>(items: ArrayLike<T>, index: number, what = 'an item'): T {
  const item = index < 0 ? items[items.length + index] : items[index];
  if (item === undefined) throw new Error(`expected ${what} at index ${index}, but there are ${items.length} items`);
  return item;
}

/** The one item of `items`; throws when there are none or several. */
export function only<T>(items: ArrayLike<T>, what = 'item'): T {
  if (items.length !== 1) throw new Error(`expected exactly one ${what}, but there are ${items.length}`);
  return at(items, 0, what);
}

/** `value`, which the test expects to be set; throws when it is undefined. */
export function defined<T>(value: T | undefined, what = 'a value'): T {
  if (value === undefined) throw new Error(`expected ${what}, but it is undefined`);
  return value;
}
