/**
 * How the L5 model (model.ts) makes text of the values a manifest holds, as the engine prints
 * them: Python's `str()` (`True`, `2.0`, `1.5e-07`, every digit of a long integer), a false type
 * or summary as absent, names as D7 has them, list fields as lists of text, and the view of a row
 * the Codex turn compiler reads (only what was written as text). The texts go through the Intern
 * of the manifest being read (`withIntern`). Apart from model.ts so that file stays the schemas.
 */
import { isPyNumber, pyStr, truthy, type PyFloat, type PyInt } from '../python-str.js';

/** Gives back one shared string for equal texts (manifest.ts `interner`). */
export type Intern = (text: string) => string;

/** Keeps each text as it is: rows read without a pool. */
export const keep: Intern = (text) => text;

/**
 * The Intern of the manifest being read. zod transforms take no context of the caller's, and a
 * read is synchronous, so `withIntern` sets it for the length of one read.
 */
export let intern: Intern = keep;

/** `read()`'s result, the rows it parses keeping their texts through `pool`. */
export function withIntern<T>(pool: Intern, read: () => T): T {
  const before = intern;
  intern = pool;
  try {
    return read();
  } finally {
    intern = before;
  }
}

export const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || typeof value === 'boolean' || isPyNumber(value);
export type Scalar = string | boolean | number | bigint | PyFloat | PyInt;

/** Text as the engine prints a value, Python's `str()`: `True`, `3`, `2.0`, `1.5e-07`, `nan`, every digit of a long integer. */
export const asText = (value: Scalar): string => intern(pyStr(value));
export const asOptionalText = (value: unknown): string | null => (isScalar(value) ? asText(value) : null);
/**
 * A field the engine serves only when set, `str(x or …)` (an entity's type and summary, the agent
 * block): a false value (`no`, `0`, `''`, `0.0`) is as if absent; any other is its `str()` (`yes`
 * is `True`).
 */
export const asSetText = (value: unknown): string | null => (isScalar(value) && truthy(value) ? asText(value) : null);
/**
 * A name or alias (D7): the engine crashes on one that is not text, so ours is the text a YAML
 * 1.1 reader wrote it as: `yes` is `true`, a number its `str()`.
 */
export const asName = (value: Scalar): string => intern(typeof value === 'boolean' ? String(value) : pyStr(value));

/**
 * A list field's items as text, at their exact length: an array built by push keeps room for 16
 * more items, and with a server holding some 150,000 short lists that was a fifth of its heap.
 */
export function asList(value: unknown, each: (item: Scalar) => string = asText): string[] {
  if (value == null) return [];
  if (value instanceof Set) return [...(value as Set<Scalar>)].map(each);
  if (!Array.isArray(value)) return isScalar(value) ? [each(value)] : [];
  return value.length ? value.map((item: Scalar) => each(item)) : [];
}

/**
 * The list fields as the Codex turn compiler reads them, only the items written as text, as the
 * engine's compiler keeps them (`isinstance(x, str)`); `cwd` and `summary` null when not written
 * as text. Present only on a row where something differs (`aliases: [7, orb]`): the usual row
 * costs nothing.
 */
export type TextOnly = Partial<Record<'aliases' | 'project_focus' | 'key_actions' | 'files_touched', string[]>> & {
  cwd?: null;
  summary?: null;
};

export function textOnly(lists: Record<string, unknown>, cwd?: unknown, summary?: unknown): { textOnly?: TextOnly } {
  let out: TextOnly | undefined;
  for (const [field, value] of Object.entries(lists)) {
    const items = value instanceof Set ? [...value] : value;
    if (!Array.isArray(items) || items.every((item) => typeof item === 'string')) continue;
    out ??= {};
    out[field as 'aliases'] = items.filter((item): item is string => typeof item === 'string').map(intern);
  }
  if (cwd != null && typeof cwd !== 'string') (out ??= {}).cwd = null;
  if (summary != null && typeof summary !== 'string') (out ??= {}).summary = null;
  return out ? { textOnly: out } : {};
}

/**
 * A row's list field as the tools serve it, for the surfaces that serve a row as written (the
 * memory resource): a single value is a one-item list (D1); each item that fits is its text, as
 * the row model reads it (an entity's tags only when written as text, aliases as names, other
 * items as Python's `str()`); an item that does not fit (a mapping, a list, null) is left out.
 */
export function servedList(row: 'entity' | 'session' | 'note', field: string, value: unknown): string[] {
  const items = value == null ? [] : Array.isArray(value) ? value : value instanceof Set ? [...value] : [value];
  const tags = row === 'entity' && field === 'tags';
  const each = row === 'entity' && field === 'aliases' ? asName : asText;
  return items.filter((item): item is Scalar => (tags ? typeof item === 'string' : isScalar(item))).map(each);
}
