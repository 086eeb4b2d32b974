/**
 * The L5 manifest as the queries see it. Raw documents are kept untouched (a manifest read
 * and written back loses nothing); the normalised view reads scalar list fields as one-item
 * lists (divergence D1) and resolves visibility once.
 */
import { isPyNumber, pyStr } from '../python-str.js';
import { readRow } from './lenient-reader.js';
import {
  entityRow,
  isObject,
  isRecordedUndated,
  keep,
  noteRow,
  sessionRow,
  type Entity,
  type Intern,
  type Note,
  type RawObject,
  type Session,
} from './model.js';

export { isObject, isRecordedUndated };
export type { AgentInfo, Entity, Intern, Note, RawObject, Session } from './model.js';

export const AGENT_TYPES = [
  'code-assistant',
  'creative-collaborator',
  'customer-support',
  'local-swarm',
  'note-capture',
  'other',
  'project-manager',
  'research-assistant',
  'tutor',
] as const;

/**
 * An Intern for the rows of one manifest. Rows repeat a few values thousands of times (types,
 * tags, dates, working folders, project names, which are also entity names), and a parser gives
 * each occurrence its own string: a server holding the library keeps one of each instead. Each
 * string kept is detached from the manifest's text (see detached), so the record does not hold
 * the text too.
 */
export function interner(): Intern {
  const pool = new Map<string, string>();
  return (text) => {
    const known = pool.get(text);
    if (known !== undefined) return known;
    const own = detached(text);
    pool.set(own, own);
    return own;
  };
}

/**
 * `text`, as a string that holds no reference to the one it was cut from. V8 keeps a substring
 * of 13 characters or more (what the YAML parser returns for every scalar) as a view of its
 * source, so one kept scalar keeps the whole manifest text alive: a server held every manifest's
 * whole text beside its records (bench/README.md, memory). JSON's round trip copies exactly (lone
 * surrogates included) into one flat string; a concatenation then a slice would copy too, but
 * keep a view over the copy for every string (bench/README.md, memory).
 */
function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** A scalar as text: a string as it is, true/false as YAML writes them, a number as Python's `str()` (`2.0`, `1.5e-07`, every digit). */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (isPyNumber(value)) return pyStr(value);
  return null;
}

/** One entity row as the model reads it (model.ts), or null when it does not fit. */
export function normaliseEntity(raw: unknown, intern: Intern = keep): Entity | null {
  return readRow(entityRow, raw, intern);
}

export function normaliseSession(raw: unknown, intern: Intern = keep): Session | null {
  return readRow(sessionRow, raw, intern);
}

export function normaliseNote(raw: unknown, intern: Intern = keep): Note | null {
  return readRow(noteRow, raw, intern);
}

export function rawRows(doc: RawObject, field: string): unknown[] {
  const value = doc[field];
  return Array.isArray(value) ? value : [];
}

/** Newest first by the date as written; undated rows (no real day) last, in file order. */
export function newestFirst(a: Session, b: Session): number {
  if (a.day === null || b.day === null) return a.day === b.day ? 0 : a.day === null ? 1 : -1;
  return a.date === b.date ? 0 : a.date < b.date ? 1 : -1;
}

/** Lower-cased, trimmed key used for entity names, aliases and project names. */
export function foldKey(text: string): string {
  return text.trim().toLowerCase();
}
