/**
 * Python value semantics several participants read native data with: the UTC calendar date of
 * an epoch number (`datetime.fromtimestamp(n, timezone.utc).date()`), what `float()` accepts in
 * a string, and a path's last component as `pathlib.PurePosixPath(...).name` gives it.
 */

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/**
 * The UTC calendar date of an epoch value: seconds, or milliseconds when above
 * `millisecondsAbove` (cursor: 1e10, the Claude desktop surfaces: 1e12). undefined when the
 * value is not finite or outside datetime's years 1 to 9999.
 */
export function utcDateOfEpoch(value: number, millisecondsAbove: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const seconds = value > millisecondsAbove ? value / 1000 : value;
  if (seconds < -62_135_596_800 || seconds >= 253_402_300_800) return undefined;
  const date = new Date(seconds * 1000);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
}

/** Python's `float(text)` grammar: a sign, digits (single `_` between digits), fraction, exponent; or inf/nan. */
const PY_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** The number Python's `float()` reads from an already trimmed string; undefined when it raises. */
export function pyFloatOf(text: string): number | undefined {
  if (PY_SPECIAL.test(text)) {
    const negative = text.startsWith('-');
    if (/nan/i.test(text)) return NaN;
    return negative ? -Infinity : Infinity;
  }
  if (!PY_FLOAT.test(text)) return undefined;
  return Number(text.replaceAll('_', ''));
}

/** A path's last component as Python's `PurePosixPath(path).name`: empty and `.` parts ignored; '' for none. */
export function posixName(value: string): string {
  const parts = value.split('/').filter((part) => part !== '' && part !== '.');
  return parts.at(-1) ?? '';
}
