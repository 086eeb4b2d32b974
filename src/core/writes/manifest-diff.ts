/**
 * What changed from one manifest to another (explain_memory_change's answer, and the preview of
 * promoting a staged write): the rows a level may see, keyed as merges key them, every field of
 * an added or removed row and every changed field of a changed one. A read (explain_memory_change,
 * `bourdon diff`) shows every value redacted (spec §7) and long lists cut; the review of a staged
 * write (`whole`) shows every value whole, every character that promoting would write, so what a
 * reviewer approves is what goes live. Pure; no file access.
 */
import { canSee, policyOf, rowLevel, type AccessLevel } from '../trust/access.js';
import { isObject, type RawObject } from '../store/manifest.js';
import { isPyNumber, pyStr, truthy } from '../python-str.js';
import { entityKey, noteKey, sameValue, sessionKey } from './merge.js';
import { readText } from '../trust/redaction.js';
import { parseYamlMapping } from '../store/yaml.js';

/** Longest list shown for one field in a diff; the rest is counted. */
const MAX_LIST_ITEMS = 20;

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** How a diff shows a value and a text: redacted for a read, whole for a review. */
interface Shower {
  value(value: unknown): unknown;
  text(text: string): string;
}

/** A value as a read's diff shows it: strings redacted (the one read rule, readText), long lists cut, objects as redacted JSON. */
function redactedValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return readText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (isPyNumber(value)) return pyStr(value);
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_LIST_ITEMS).map(redactedValue);
    if (value.length > MAX_LIST_ITEMS) items.push(`… (+${value.length - MAX_LIST_ITEMS} more)`);
    return items;
  }
  return readText(JSON.stringify(value));
}

/**
 * A value as a review shows it: whole — every string as it is, every item of a list, an object
 * as its JSON (every character of it). Iterative over lists: a staged file's nesting is bounded
 * by the commit's depth check, but the review never needs the stack for it.
 */
function wholeValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item) => (Array.isArray(item) ? JSON.stringify(item) : wholeValue(item)));
  return JSON.stringify(value);
}

const REDACTED_SHOWER: Shower = { value: redactedValue, text: (text) => readText(text) };
const WHOLE_SHOWER: Shower = { value: wholeValue, text: (text) => text };

/** One field of an added or removed row, as a diff shows it. */
export interface RowField {
  field: string;
  value: unknown;
}

/**
 * Every field of a row a diff adds or removes, besides those that name it: its visibility as
 * reads apply it (a missing or unknown label shown as the level it counts as), then the rest in
 * the row's order, redacted. A reviewer sees what a row would answer (its aliases, summary,
 * tags, actions), not only its name.
 */
function rowFields(show: Shower, row: RawObject, naming: readonly string[]): RowField[] {
  const out: RowField[] = [{ field: 'visibility', value: levels.get(row) ?? rowLevel(row, null) }];
  for (const [field, value] of Object.entries(row))
    if (field !== 'visibility' && !naming.includes(field)) out.push({ field, value: show.value(value) });
  return out;
}

function fieldChanges(show: Shower, before: RawObject, after: RawObject, skip: readonly string[] = []): FieldChange[] {
  const fields = [...Object.keys(before), ...Object.keys(after).filter((key) => !(key in before))];
  const out: FieldChange[] = [];
  for (const field of fields) {
    if (skip.includes(field)) continue;
    if (!sameValue(before[field], after[field]))
      out.push({ field, before: show.value(before[field]), after: show.value(after[field]) });
  }
  return out;
}

/** One side of a diff: the parsed manifest, or none (absent), or unreadable bytes. */
export interface Side {
  doc: RawObject | null;
  unreadable: boolean;
}

export function sideOf(data: Buffer | null): Side {
  if (data === null) return { doc: null, unreadable: false };
  try {
    const doc = parseYamlMapping(data);
    return doc ? { doc, unreadable: false } : { doc: null, unreadable: true };
  } catch {
    return { doc: null, unreadable: true };
  }
}

/** Each row rowsByKey kept, with the level its manifest's visibility_policy gives it (D19). */
const levels = new WeakMap<RawObject, AccessLevel>();

/** Visible rows of one list, keyed; a later duplicate key wins. */
function rowsByKey(
  doc: RawObject | null,
  field: string,
  keyOf: (row: RawObject) => string | null,
  level: AccessLevel,
): Map<string, RawObject> {
  const out = new Map<string, RawObject>();
  const rows = doc && Array.isArray(doc[field]) ? (doc[field] as unknown[]) : [];
  const policy = policyOf(doc);
  for (const row of rows) {
    if (!isObject(row)) continue;
    const visibility = rowLevel(row, policy);
    if (!canSee(level, visibility)) continue;
    levels.set(row, visibility);
    const key = keyOf(row);
    if (key !== null) out.set(key, row);
  }
  return out;
}

interface RowDiff {
  added: RawObject[];
  removed: RawObject[];
  changed: { before: RawObject; after: RawObject; fields: FieldChange[] }[];
}

function diffRows(show: Shower, before: Map<string, RawObject>, after: Map<string, RawObject>): RowDiff {
  const out: RowDiff = { added: [], removed: [], changed: [] };
  for (const [key, row] of after) {
    const old = before.get(key);
    if (!old) out.added.push(row);
    else {
      const fields = fieldChanges(show, old, row);
      if (fields.length) out.changed.push({ before: old, after: row, fields });
    }
  }
  for (const [key, row] of before) if (!after.has(key)) out.removed.push(row);
  return out;
}

/** The text of a field as Python's truthiness and str() read it, or null. */
const textOrNull = (value: unknown): string | null => (truthy(value) ? pyStr(value) : null);

/** How a diff names a session and a note (an entity is named by its name). */
export type SessionId = { date: string | null; cwd: string | null };
export type NoteId = { date: string | null; title: unknown; text: string | null };

/** How a diff names and lists rows, its values shown by `show`. */
function rowShapes(show: Shower) {
  const shownText = (value: string | null): string | null => (value === null ? null : show.text(value));
  const entityName = (row: RawObject): string => show.text(pyStr(row.name));
  const sessionId = (row: RawObject): SessionId => ({
    date: shownText(textOrNull(row.date)),
    cwd: shownText(textOrNull(row.cwd)),
  });
  const noteId = (row: RawObject): NoteId => ({
    date: shownText(textOrNull(row.date)),
    title: show.value(row.title),
    text: shownText(textOrNull(row.text)),
  });
  return {
    entityName,
    sessionId,
    noteId,
    entityRow: (row: RawObject) => ({ name: entityName(row), fields: rowFields(show, row, ['name']) }),
    sessionRow: (row: RawObject) => ({ ...sessionId(row), fields: rowFields(show, row, ['date', 'cwd']) }),
    noteRow: (row: RawObject) => ({ ...noteId(row), fields: rowFields(show, row, ['date', 'title', 'text']) }),
  };
}

const ROW_FIELDS = ['known_entities', 'recent_sessions', 'notes'];

function agentChanges(show: Shower, before: Side, after: Side): FieldChange[] {
  const out: FieldChange[] = [];
  if (before.unreadable || after.unreadable) {
    const state = (side: Side) => (side.unreadable ? 'not a readable manifest' : side.doc ? 'manifest' : 'absent');
    out.push({ field: 'manifest', before: state(before), after: state(after) });
  }
  const b = before.doc ?? {};
  const a = after.doc ?? {};
  const agentBefore = isObject(b.agent) ? b.agent : {};
  const agentAfter = isObject(a.agent) ? a.agent : {};
  for (const change of fieldChanges(show, agentBefore, agentAfter))
    out.push({ ...change, field: `agent.${change.field}` });
  for (const change of fieldChanges(show, b, a, [...ROW_FIELDS, 'agent'])) out.push(change);
  return out;
}

export interface DiffOptions {
  /**
   * Every value whole (the review of a staged write: what promoting would write, every
   * character); else redacted and cut as reads show text (spec §7).
   */
  whole?: boolean;
}

/**
 * What changed from one manifest to another, as explain_memory_change shows it: rows the
 * level may see, keyed as merges key them, every value redacted. Also used, `whole`, to
 * preview what promoting a staged write would change.
 */
export function diffManifests(older: Side, newer: Side, level: AccessLevel, options: DiffOptions = {}) {
  const show = options.whole ? WHOLE_SHOWER : REDACTED_SHOWER;
  const { entityName, sessionId, noteId, entityRow, sessionRow, noteRow } = rowShapes(show);
  const entities = diffRows(
    show,
    rowsByKey(older.doc, 'known_entities', entityKey, level),
    rowsByKey(newer.doc, 'known_entities', entityKey, level),
  );
  const sessions = diffRows(
    show,
    rowsByKey(older.doc, 'recent_sessions', sessionKey, level),
    rowsByKey(newer.doc, 'recent_sessions', sessionKey, level),
  );
  const notes = diffRows(
    show,
    rowsByKey(older.doc, 'notes', noteKey, level),
    rowsByKey(newer.doc, 'notes', noteKey, level),
  );
  const counts = (diff: RowDiff) => `+${diff.added.length} -${diff.removed.length} ~${diff.changed.length}`;
  return {
    agent_changes: agentChanges(show, older, newer),
    entities: {
      added: entities.added.map(entityRow),
      removed: entities.removed.map(entityRow),
      changed: entities.changed.map((change) => ({ name: entityName(change.after), fields: change.fields })),
    },
    sessions: {
      added: sessions.added.map(sessionRow),
      removed: sessions.removed.map(sessionRow),
      changed: sessions.changed.map((change) => ({ ...sessionId(change.after), fields: change.fields })),
    },
    notes: {
      added: notes.added.map(noteRow),
      removed: notes.removed.map(noteRow),
      changed: notes.changed.map((change) => ({ ...noteId(change.after), fields: change.fields })),
    },
    counts: { entities: counts(entities), sessions: counts(sessions), notes: counts(notes) },
  };
}

export type ManifestDiff = ReturnType<typeof diffManifests>;
