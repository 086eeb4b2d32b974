/**
 * Row merging for commits, exactly as the Python engine's `commit_l5` does it (spec §5.10):
 * entities dedupe by lower-cased, trimmed name; sessions by (date, cwd); notes by
 * (date, text). On a duplicate, list fields are unioned (both sides read a scalar as a
 * one-item list, null as empty) and every other field is overwritten when the new value is not
 * null; existing keys keep their position and new keys are appended. New rows are appended in
 * the caller's key order with their list fields coerced to lists.
 */
import { isPyNumber, PyFloat, PyInt, pyStr, samePyNumber, truthy } from '../python-str.js';
import { isObject, type RawObject } from '../store/manifest.js';

export const ENTITY_LIST_FIELDS = ['tags', 'aliases'] as const;
export const SESSION_LIST_FIELDS = ['project_focus', 'key_actions', 'files_touched'] as const;
export const NOTE_LIST_FIELDS = ['tags', 'project_focus'] as const;

interface MergeCounts {
  added: number;
  updated: number;
}

/** `str(value or "")`. */
function strOrEmpty(value: unknown): string {
  return truthy(value) ? pyStr(value) : '';
}

function coerceList(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Structural equality of JSON-like values (Python's == on parsed YAML/JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (isPyNumber(a) || isPyNumber(b)) return isPyNumber(a) && isPyNumber(b) && samePyNumber(a, b);
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Set || b instanceof Set)
    return a instanceof Set && b instanceof Set && a.size === b.size && [...a].every((item) => b.has(item));
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameValue(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue(a[key], b[key]));
  }
  return false;
}

/**
 * A key that two JSON-like values share exactly when `sameValue` holds for them, so a union
 * is one Set lookup per item instead of a scan of the whole list (a 40,000-item union used to
 * hold the event loop for half a minute). Object keys are sorted, as `sameValue` ignores
 * their order; `-0` stays apart from `0`, as `Object.is` keeps it.
 */
function valueKey(value: unknown): string {
  if (typeof value === 'string') return `s${value}`;
  return `j${JSON.stringify(canonical(value))}`;
}

function canonical(value: unknown): unknown {
  if (typeof value === 'string') return ['s', value];
  if (typeof value === 'number') return ['n', Object.is(value, -0) ? '-0' : String(value)];
  // Python's == across kinds: 2.0 is 2; an integer past 2^53 by its every digit.
  if (value instanceof PyFloat) return canonical(value.value);
  if (value instanceof PyInt) return ['n', value.toString()];
  if (typeof value === 'boolean') return ['b', value];
  if (value === null) return ['z'];
  if (value === undefined) return ['u'];
  if (Array.isArray(value)) return ['a', ...value.map(canonical)];
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return ['o', ...keys.map((key) => [key, canonical(value[key])])];
  }
  return ['x', String(value)];
}

/** Unions `value` into `target[field]`, keeping the existing order and appending new items in theirs. */
function unionListField(target: RawObject, field: string, value: unknown): void {
  const current = coerceList(target[field]);
  target[field] = current;
  const incoming = coerceList(value);
  if (incoming.length === 0) return;
  const seen = new Set(current.map(valueKey));
  for (const item of incoming) {
    const key = valueKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    current.push(item);
  }
}

function normalisedRow(row: RawObject, listFields: readonly string[]): RawObject {
  const out: RawObject = { ...row };
  for (const field of listFields) {
    if (field in out) out[field] = coerceList(out[field]);
  }
  return out;
}

type KeyOf = (row: RawObject) => string | null;

/** Existing entities are matched on string names only (as the engine does). */
export const entityKey: KeyOf = (row) => (typeof row.name === 'string' ? row.name.trim().toLowerCase() : null);
export const incomingEntityKey: KeyOf = (row) => pyStr(row.name).trim().toLowerCase();
export const sessionKey: KeyOf = (row) => JSON.stringify([strOrEmpty(row.date), strOrEmpty(row.cwd)]);
export const noteKey: KeyOf = (row) => JSON.stringify([strOrEmpty(row.date), strOrEmpty(row.text)]);

/**
 * Merges `incoming` rows into `existing` in place. Returns how many were added and updated
 * (a duplicate within the same batch counts as an update, as in the engine).
 */
export function mergeRows(
  existing: unknown[],
  incoming: readonly RawObject[],
  listFields: readonly string[],
  existingKey: KeyOf,
  incomingKey: KeyOf = existingKey,
): MergeCounts {
  const byKey = new Map<string, RawObject>();
  for (const row of existing) {
    if (!isObject(row)) continue;
    const key = existingKey(row);
    if (key !== null) byKey.set(key, row);
  }
  let added = 0;
  let updated = 0;
  for (const row of incoming) {
    const key = incomingKey(row) ?? '';
    const target = byKey.get(key);
    if (target) {
      for (const [field, value] of Object.entries(row)) {
        if (listFields.includes(field)) unionListField(target, field, value);
        else if (value !== null && value !== undefined) target[field] = value;
      }
      updated += 1;
    } else {
      const fresh = normalisedRow(row, listFields);
      existing.push(fresh);
      byKey.set(key, fresh);
      added += 1;
    }
  }
  return { added, updated };
}

/** Sessions newest first by `str(date or "")`, stable (equal dates keep their order). */
export function sortSessions(rows: unknown[]): void {
  const keyOf = (row: unknown) => (isObject(row) ? strOrEmpty(row.date) : '');
  rows.sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka === kb ? 0 : ka < kb ? 1 : -1;
  });
}
