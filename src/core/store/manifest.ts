/**
 * The L5 manifest as the queries see it. Raw documents are kept untouched (a manifest read
 * and written back loses nothing); the normalised view reads scalar list fields as one-item
 * lists (divergence D1) and resolves visibility once.
 */
import { rowVisibility, type AccessLevel } from './visibility.js';
import { dayOf } from './dates.js';

export type RawObject = Record<string, unknown>;

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

export interface Entity {
  name: string;
  type: string | null;
  aliases: string[];
  summary: string | null;
  tags: string[];
  valid_to: string | null;
  visibility: AccessLevel;
}

export interface Session {
  /** As written (a day, a datetime, or text that is neither). */
  date: string;
  /**
   * The real calendar day `date` names, or null when it names none (`2026-13-01`, `soon`): such
   * a row is undated, dropped wherever a date window applies and never the newest.
   */
  day: string | null;
  cwd: string | null;
  project_focus: string[];
  key_actions: string[];
  files_touched: string[];
  visibility: AccessLevel;
}

export interface Note {
  /** As written: a day or an ISO datetime. */
  date: string;
  /** The calendar day of `date`, for filters and ordering. */
  day: string;
  text: string;
  title: string | null;
  tags: string[];
  project_focus: string[];
  visibility: AccessLevel;
}

export interface AgentInfo {
  type: string | null;
  instance: string | null;
  role_narrative: string | null;
}

export function isObject(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A list field: a scalar reads as a one-item list (D1), null as empty, non-text items are dropped.
 * Lists are returned at their exact length (see exactLength).
 */
function asList(value: unknown, intern: Intern = keep): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    return typeof value === 'string' ? [intern(value)] : isScalar(value) ? [intern(String(value))] : [];
  if (value.every(isString)) return exactLength(value, intern);
  const out: string[] = [];
  for (const item of value) {
    if (typeof item === 'string') out.push(item);
    else if (isScalar(item)) out.push(String(item));
  }
  return exactLength(out, intern);
}

/** Entity tags: only the items that are text, as the engine keeps them (`[1, true, 't']` → `['t']`). */
function textItems(value: unknown, intern: Intern): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return typeof value === 'string' ? [intern(value)] : [];
  return exactLength(value.every(isString) ? value : value.filter(isString), intern);
}

const isString = (item: unknown): item is string => typeof item === 'string';
const isScalar = (item: unknown): item is number | boolean => typeof item === 'number' || typeof item === 'boolean';

/**
 * A copy of a list with no spare room. An array built by push (the YAML parser's, a filter's)
 * keeps room for 16 more items: with a server holding some 150,000 short lists, that spare room
 * was a fifth of its heap. `map` allocates the exact length; an empty list allocates nothing.
 */
function exactLength(items: readonly string[], intern: Intern): string[] {
  return items.length ? items.map((item) => intern(item)) : [];
}

/** Gives back one shared string for equal texts (see interner). */
export type Intern = (text: string) => string;

const keep: Intern = (text) => text;

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
 * source, so one kept scalar keeps the whole manifest text alive: a server holding 50 manifests
 * of 315 KB held their 15 MB of text beside the records. JSON's round trip copies exactly (lone
 * surrogates included) into one flat string; a concatenation then a slice would copy too, but
 * keep a 32-byte view over the copy for every string (5.6 MB of a 50-agent server: bench/README.md).
 */
export function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

const internText = (value: string | null, intern: Intern): string | null => (value === null ? null : intern(value));

export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

// The normalisers pass every string through `intern` (see interner): repeated values are shared,
// and every string kept is detached from the manifest's text.

export function normaliseEntity(raw: unknown, intern: Intern = keep): Entity | null {
  if (!isObject(raw)) return null;
  // Names are answered stripped (so ' Orbit ' merges with another agent's 'Orbit'), and a
  // name YAML read as a number is answered as its text (D7).
  const name = asText(raw.name)?.trim();
  if (!name) return null;
  return {
    name: intern(name),
    type: internText(asText(raw.type), intern),
    aliases: asList(raw.aliases, intern),
    summary: internText(asText(raw.summary), intern),
    tags: textItems(raw.tags, intern),
    valid_to: internText(asText(raw.valid_to), intern),
    visibility: rowVisibility(raw.visibility),
  };
}

export function normaliseSession(raw: unknown, intern: Intern = keep): Session | null {
  if (!isObject(raw)) return null;
  const date = asText(raw.date);
  // A session without a date is not a session. One whose date names no real day is kept but
  // undated (see Session.day); a time part counts as the calendar day written before it.
  if (!date || !date.trim()) return null;
  return {
    date: intern(date),
    day: internText(dayOf(date), intern),
    cwd: internText(asText(raw.cwd), intern),
    project_focus: asList(raw.project_focus, intern),
    key_actions: asList(raw.key_actions, intern),
    files_touched: asList(raw.files_touched, intern),
    visibility: rowVisibility(raw.visibility),
  };
}

export function normaliseNote(raw: unknown, intern: Intern = keep): Note | null {
  if (!isObject(raw)) return null;
  const date = asText(raw.date);
  const text = asText(raw.text);
  const day = dayOf(date);
  if (!date || !day || text === null || !text.trim()) return null;
  return {
    date: intern(date),
    day: intern(day),
    text: intern(text),
    title: internText(asText(raw.title), intern),
    tags: asList(raw.tags, intern),
    project_focus: asList(raw.project_focus, intern),
    visibility: rowVisibility(raw.visibility),
  };
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
