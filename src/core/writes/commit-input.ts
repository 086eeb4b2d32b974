/**
 * What a commit may carry, checked before anything touches the disk (spec §5.10): the id, the
 * mode, the shape and size limits that bound the work one call can cause, and the rows'
 * required fields. The live write and staging both call `precheckCommit`; staging words row
 * problems its own way. Pure; no file access.
 */
import { parseCalendarDay } from '../store/dates.js';
import { pyRepr } from '../python-str.js';
import { invalidWriteAgentIdMessage, isValidAgentId } from '../store/ids.js';
import { AGENT_TYPES, isObject } from '../store/manifest.js';
import type { CommitArgs } from './inputs.js';
import { ENTITY_LIST_FIELDS, NOTE_LIST_FIELDS, SESSION_LIST_FIELDS } from './merge.js';

/** Largest commit accepted, as JSON: 4 MiB. */
export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

const COMMIT_MODES = ['merge', 'replace'] as const;

export type { CommitArgs };

/**
 * Deepest nesting accepted in a commit's input, counted from the arguments object (a row's
 * field is at depth 3). Manifests are shallow; the YAML reader refuses documents nested
 * deeper than 100 levels, and deeper input would overflow the serialiser's stack.
 */
export const MAX_INPUT_DEPTH = 64;

/** Whether `value` nests deeper than `limit` levels; stops looking there, so it never recurses far. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit <= 0) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (nestedDeeperThan(child, limit - 1)) return true;
  }
  return false;
}

/** Checks the input's shape limits: nesting (MAX_INPUT_DEPTH), then size as JSON (MAX_INPUT_BYTES). */
function inputSizeError(args: unknown): string | null {
  if (nestedDeeperThan(args, MAX_INPUT_DEPTH))
    return `input is nested more than ${MAX_INPUT_DEPTH} levels deep; the limit is ${MAX_INPUT_DEPTH}`;
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
  } catch {
    return 'input cannot be encoded as JSON';
  }
  return size > MAX_INPUT_BYTES ? `input is ${size} bytes; the limit is ${MAX_INPUT_BYTES} (4 MiB)` : null;
}

/**
 * Rows one commit may carry, per list (entities, sessions, notes). Real manifests hold tens to
 * a few hundred rows; a whole-manifest `replace` of the benchmark's largest agent (1,000
 * entities, 500 sessions, 50 notes) fits.
 */
const MAX_COMMIT_ROWS = 2_000;

/**
 * Items one list field of one row may carry in a commit (tags, aliases, project_focus,
 * key_actions, files_touched). A session touching more files than this is summarised, not listed.
 */
const MAX_LIST_ITEMS = 1_000;

/**
 * List items one commit may carry in all (every list field of every row). The write path
 * re-serialises the manifest as YAML under the library gate (on a server's write thread), in
 * time linear in its values, so this, with the row cap, bounds what one call can hold every
 * other writer for (bench/README.md).
 */
const MAX_COMMIT_ITEMS = 20_000;

const LIST_FIELDS_OF = {
  entities: ENTITY_LIST_FIELDS,
  sessions: SESSION_LIST_FIELDS,
  notes: NOTE_LIST_FIELDS,
} as const;

/**
 * The caps (MAX_COMMIT_ROWS, MAX_LIST_ITEMS) over a commit's rows — or a staged file's, which
 * must stay promotable as one commit: a one-line reason naming no caller text, or null.
 */
export function commitCapError(
  rows: Pick<CommitArgs, 'entities' | 'sessions' | 'notes'>,
  scope = 'per commit',
): string | null {
  let items = 0;
  for (const field of ['entities', 'sessions', 'notes'] as const) {
    const list = rows[field];
    if (!Array.isArray(list)) continue;
    if (list.length > MAX_COMMIT_ROWS)
      return `${field} has ${list.length} rows; the limit is ${MAX_COMMIT_ROWS} ${scope}`;
    for (const [index, row] of list.entries()) {
      if (!isObject(row)) continue;
      for (const name of LIST_FIELDS_OF[field]) {
        const value = row[name];
        if (!Array.isArray(value)) continue;
        if (value.length > MAX_LIST_ITEMS)
          return `${field}[${index}].${name} has ${value.length} items; the limit is ${MAX_LIST_ITEMS} ${scope}`;
        items += value.length;
      }
    }
  }
  if (items > MAX_COMMIT_ITEMS)
    return `the rows carry ${items} list items in all; the limit is ${MAX_COMMIT_ITEMS} ${scope}`;
  return null;
}

function blank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

/** The first row a commit cannot take, and why; callers word it (see ENGINE_ROW_MESSAGES). */
export type RowProblem =
  | { kind: 'entity'; reason: 'not_object' | 'no_name'; row: unknown }
  | { kind: 'session'; reason: 'not_object' | 'no_date'; row: unknown }
  | { kind: 'note'; reason: 'not_object' | 'no_date' | 'bad_date' | 'no_text'; row: unknown };

/** The row checks, in the engine's order: entities, sessions, then notes; first problem wins. */
function rowProblem(args: CommitArgs): RowProblem | null {
  for (const row of args.entities ?? []) {
    if (!isObject(row)) return { kind: 'entity', reason: 'not_object', row };
    if (blank(row.name)) return { kind: 'entity', reason: 'no_name', row };
  }
  for (const row of args.sessions ?? []) {
    if (!isObject(row)) return { kind: 'session', reason: 'not_object', row };
    if (blank(row.date)) return { kind: 'session', reason: 'no_date', row };
  }
  for (const row of args.notes ?? []) {
    if (!isObject(row)) return { kind: 'note', reason: 'not_object', row };
    if (blank(row.date)) return { kind: 'note', reason: 'no_date', row };
    if (!parseCalendarDay((row.date as string).trim())) return { kind: 'note', reason: 'bad_date', row };
    if (blank(row.text)) return { kind: 'note', reason: 'no_text', row };
  }
  return null;
}

/** The engine's wording of a row problem (the trusted commit's messages, fixed by the fixtures). */
function engineRowMessage(problem: RowProblem): string {
  const { row } = problem;
  if (problem.reason === 'not_object') return `${problem.kind} is not a dict: ${pyRepr(row)}`;
  if (problem.kind === 'entity') return `entity missing non-empty 'name': ${pyRepr(row)}`;
  if (problem.kind === 'session') return `session missing non-empty 'date': ${pyRepr(row)}`;
  if (problem.reason === 'bad_date')
    return `note 'date' must be YYYY-MM-DD or an ISO datetime: ${pyRepr(isObject(row) ? row.date : row)}`;
  return `note missing non-empty '${problem.reason === 'no_text' ? 'text' : 'date'}': ${pyRepr(row)}`;
}

/** How a caller of precheckCommit words row problems and which modes it refuses beyond the valid ones. */
export interface CommitRules {
  rowMessage: (problem: RowProblem) => string;
  /** A message when this caller may not use a valid mode, else null. */
  modeRefusal?: (mode: string) => string | null;
}

const ENGINE_RULES: CommitRules = { rowMessage: engineRowMessage };

/**
 * Checks that need no disk: id, mode, size, rows, in that order. Returns the error message or
 * null. The live write and staging both call it; staging adds its own mode rule and wording.
 */
export function precheckCommit(args: CommitArgs, rules: CommitRules = ENGINE_RULES): string | null {
  if (!isValidAgentId(args.agent_id)) return invalidWriteAgentIdMessage(args.agent_id);
  const mode = args.mode ?? 'merge';
  if (!(COMMIT_MODES as readonly string[]).includes(mode)) {
    return `invalid mode ${pyRepr(mode)}: must be 'merge' or 'replace'`;
  }
  const refused = rules.modeRefusal?.(mode);
  if (refused) return refused;
  for (const field of ['entities', 'sessions', 'notes'] as const) {
    const value = args[field];
    if (value !== null && value !== undefined && !Array.isArray(value))
      return `${field} must be a list, not ${pyRepr(value)}`;
  }
  const sizeProblem = inputSizeError(args) ?? commitCapError(args);
  if (sizeProblem) return sizeProblem;
  const problem = rowProblem(args);
  return problem ? rules.rowMessage(problem) : null;
}

export function enumError(value: unknown): string {
  return `agent_type ${pyRepr(value)} is not in the L5 schema enum: ${pyRepr([...AGENT_TYPES])}`;
}
