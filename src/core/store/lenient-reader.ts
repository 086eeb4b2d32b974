/**
 * The lenient reading of the L5 model (model.ts): a manifest someone else wrote, read through
 * the read-row schemas. A value that does not fit is dropped at the smallest level that makes
 * the rest fit: a list item, else the field, else the row (a row without its name, date or
 * text); every drop is reported as a Misfit, so the loader warns once naming the file and the
 * first field. The document itself is never changed: values are dropped from a copy of the path
 * to them.
 */
import type * as z from 'zod';
import {
  asOptionalText,
  defineKey,
  describeMisfit,
  entityRow,
  fieldPath,
  isObject,
  isRecordedUndated,
  keep,
  kindOf,
  manifestBlocks,
  noteRow,
  sessionRow,
  valueAt,
  withIntern,
  writtenManifest,
  type Intern,
  type ManifestRows,
  type Path,
  type RawObject,
} from './model.js';
import { policyOf, rowLevel, type AccessLevel, type VisibilityPolicy } from './visibility.js';

/** A value left out because it does not fit: where (`known_entities[3].name`) and why. */
export interface Misfit {
  field: string;
  reason: string;
  /**
   * Whether the rest of the row holding it is read (only the value, a list item or a field, is
   * left out); false when the whole row went with it. Doctor reports those two apart.
   */
  rowKept: boolean;
}

/** Passes after which a document still not fitting gives up its rows (each pass drops at least one value). */
const MAX_PASSES = 8;

/**
 * A manifest's blocks and rows as the model reads them, and what was left out to read them.
 * `doc` is not changed (the store keeps raw documents as written): values are dropped from a
 * copy of the path to them.
 */
export function readManifest(doc: RawObject, pool: Intern = keep): { rows: ManifestRows; misfits: Misfit[] } {
  return withIntern(pool, () => {
    const misfits: Misfit[] = [];
    const blocks = readFitting(manifestBlocks(), doc, [], misfits) ?? manifestBlocks().parse({});
    const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
    const policy = policyOf(doc);
    return {
      rows: {
        agent: blocks.agent,
        last_updated: asOptionalText(blocks.last_updated),
        capabilities: list(blocks.capabilities),
        entities: readRows(entityRow(), list(blocks.known_entities), 'known_entities', misfits, policy),
        sessions: readRows(
          sessionRow(),
          list(blocks.recent_sessions),
          'recent_sessions',
          misfits,
          policy,
          isRecordedUndated,
        ),
        notes: readRows(noteRow(), list(blocks.notes), 'notes', misfits, policy),
      },
      misfits,
    };
  });
}

/**
 * The rows of one list that fit (each with what does not fit left out); the others are named in
 * `misfits`, except those `recorded` says were written to be left out (model.ts
 * isRecordedUndated). Each row's level is read from the row as written under the manifest's
 * policy (visibility.ts rowLevel, D19), as every other reader of a raw row decides it.
 */
function readRows<T extends { visibility: AccessLevel }>(
  schema: z.ZodType<T>,
  raw: readonly unknown[],
  field: string,
  misfits: Misfit[],
  policy: VisibilityPolicy | null,
  recorded: (item: unknown) => boolean = () => false,
): T[] {
  const out: T[] = [];
  raw.forEach((item, index) => {
    if (recorded(item)) return;
    if (!isObject(item)) {
      const reason = `expected a mapping, found ${kindOf(item)}`;
      misfits.push({ field: `${field}[${index}]`, reason, rowKept: false });
      return;
    }
    const parsed = schema.safeParse(item);
    const row = parsed.success ? parsed.data : readFitting(schema, item, [field, index], misfits);
    if (row === null) return;
    if (policy !== null) row.visibility = rowLevel(item, policy);
    out.push(row);
  });
  return out;
}

/** One row through its schema (the doctor reports rows one at a time); null when the row does not fit. */
export function readRow<T>(schema: () => z.ZodType<T>, raw: unknown, pool: Intern = keep): T | null {
  if (!isObject(raw)) return null;
  return withIntern(pool, () => readFitting(schema(), raw, [], []));
}

/**
 * `doc` read through `schema`, dropping what does not fit at the smallest level (a list item,
 * else the field, else the whole) until the rest does; null when the whole must go. Each value
 * left out is added to `misfits`, named from `at` (the document's place in the manifest).
 */
function readFitting<T>(schema: z.ZodType<T>, doc: RawObject, at: Path, misfits: Misfit[]): T | null {
  const fitted = fitting(schema, doc, at, misfits);
  return fitted && fitted.data;
}

/**
 * A participant's manifest with each value that does not fit the written model (model.ts
 * `writtenManifest`) left out at the smallest level, as a read leaves it out, and what was left
 * out; `manifest` is null when nothing of it fits (its agent block does not). The manifest is not
 * changed: the result is a copy of the paths to what was dropped, every other key in its place.
 */
export function fitWrittenManifest(manifest: RawObject): { manifest: RawObject | null; misfits: Misfit[] } {
  const misfits: Misfit[] = [];
  const fitted = fitting(writtenManifest(), manifest, [], misfits);
  return { manifest: fitted && (fitted.candidate as RawObject), misfits };
}

/**
 * Any value read through `schema` as a manifest is: what does not fit left out at the smallest
 * level (a list item, else the field, else what holds it), and named in `misfits`; `value` is
 * null when the whole must go. A peer's answer is read so (operations/peer-answers.ts).
 */
export function readLeniently<T>(schema: z.ZodType<T>, doc: RawObject): { value: T | null; misfits: Misfit[] } {
  const misfits: Misfit[] = [];
  const parsed = schema.safeParse(doc);
  if (parsed.success) return { value: parsed.data, misfits };
  return { value: readFitting(schema, doc, [], misfits), misfits };
}

/** readFitting's work: the parsed value and the document it parsed (`doc` less what was dropped). */
function fitting<T>(
  schema: z.ZodType<T>,
  doc: RawObject,
  at: Path,
  misfits: Misfit[],
): { data: T; candidate: unknown } | null {
  const first = misfits.length;
  const dropped = new Set<string>();
  let candidate: unknown = doc;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return { data: parsed.data, candidate };
    const drops: Path[] = [];
    for (const issue of parsed.error.issues) {
      const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
      let where = path;
      // A key dropped already or never written (a row without its name): its row goes. A single
      // value read as a list (D1) whose one item does not fit: the value goes.
      while (where.length > 0 && (dropped.has(fieldPath(where)) || valueAt(candidate, where) === undefined))
        where = where.slice(0, -1);
      if (!dropped.has(fieldPath(path)))
        misfits.push({ field: fieldPath([...at, ...path]), reason: describeMisfit(issue, candidate), rowKept: true });
      if (where.length === 0) return wholeLost(misfits, first);
      dropped.add(fieldPath(where));
      drops.push(where);
    }
    candidate = without(candidate, trieOf(drops));
  }
  // Only a document built to defeat the passes gets here: none of it is read.
  misfits.push({ field: fieldPath(at) || '(the manifest)', reason: 'too many values do not fit', rowKept: false });
  return wholeLost(misfits, first);
}

/** Null, the document read by readFitting having gone whole: its misfits from `first` on kept no row. */
function wholeLost(misfits: Misfit[], first: number): null {
  for (const misfit of misfits.slice(first)) misfit.rowKept = false;
  return null;
}

/** Paths to drop, as a tree: `true` drops the value at that key. */
type Drops = Map<string, Drops | true>;

function trieOf(paths: readonly Path[]): Drops {
  const root: Drops = new Map();
  for (const path of paths) {
    let node = root;
    path.forEach((part, index) => {
      const key = String(part);
      const found = node.get(key);
      if (found === true) return;
      if (index === path.length - 1) node.set(key, true);
      else {
        const next: Drops = found ?? new Map();
        node.set(key, next);
        node = next;
      }
    });
  }
  return root;
}

/** `value` without what `drops` names (list items, fields), copying only the paths to them. */
function without(value: unknown, drops: Drops): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((item, index) => {
      const drop = drops.get(String(index));
      if (drop === undefined) out.push(item);
      else if (drop !== true) out.push(without(item, drop));
    });
    return out;
  }
  if (!isObject(value)) return value;
  const out: RawObject = {};
  for (const [key, item] of Object.entries(value)) {
    const drop = drops.get(key);
    if (drop === undefined) defineKey(out, key, item);
    else if (drop !== true) defineKey(out, key, without(item, drop));
  }
  return out;
}
