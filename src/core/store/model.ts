/**
 * The L5 manifest as one data model, declared once with zod (spec §2, `../shared/spec`): the
 * agent block, entities, sessions, notes and the visibility policy. Two shapes of it:
 *
 * - the read rows (`entityRow`, `sessionRow`, `noteRow`, `agentBlock`, `manifestBlocks`): what
 *   the store serves from a manifest someone else wrote (a library's `agents/`, a pulled sync
 *   branch). They keep the engine's lenience (docs/conformance.md): a scalar list field is a
 *   one-item list (D1), a number or true/false where text is expected is its text (D7), an
 *   unknown visibility label is private (D8), a date that names no day leaves a session undated;
 *   the manifest's visibility_policy is applied to each row's level as it is read (D19).
 *   lenient-reader.ts reads a manifest through them, dropping what does not fit at the smallest
 *   level that makes the rest fit.
 * - `writtenManifest`: what a participant hands the writer, checked before anything is written.
 *   It is the shape the engine writes: text where text is written, lists of text, levels by name.
 *
 * Types (Entity, Session, Note, AgentInfo, WrittenEntity) are inferred from the schemas. The
 * schemas are built on first use (lazy.ts): `--version` and a `find` answered from the parsed
 * cache never build them (bench/README.md, "The L5 model").
 */
import * as z from 'zod';
import { lazy } from '../lazy.js';
import { isPyNumber, pyStr, type PyFloat, type PyInt } from '../python-str.js';
import { dayOf } from './dates.js';
import {
  asList,
  asName,
  asOptionalText,
  asSetText,
  asText,
  intern,
  isScalar,
  textOnly,
  type Scalar,
} from './model-text.js';
import { ACCESS_LEVELS, rowLevel } from './visibility.js';

export type RawObject = Record<string, unknown>;
export { asOptionalText, keep, servedList, withIntern, type Intern, type TextOnly } from './model-text.js';

/**
 * A mapping: a plain object (as a YAML or JSON reader builds one). A value of a class (a PyFloat,
 * a PyInt, a `!!set`'s Set, `!!binary` bytes, a Date) is not one.
 */
export function isObject(value: unknown): value is RawObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

// The field schemas only check (one zod layer each, no transform): each row's one transform reads
// the values that fit, so a row costs a few checks and one function (bench/README.md).

/** Text; a number or true/false counts (D7). `filled`: not only spaces. */
const text = (filled = false) =>
  z.unknown().superRefine((value, ctx) => {
    if (!isScalar(value)) ctx.addIssue({ code: 'custom', message: `expected text, found ${kindOf(value)}` });
    else if (filled && String(value).trim() === '')
      ctx.addIssue({
        code: 'custom',
        message: `expected text, found ${value === '' ? 'an empty text' : 'only spaces'}`,
      });
  });

/** Text that may be absent or null. */
const optionalText = () =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value != null && !isScalar(value))
        ctx.addIssue({ code: 'custom', message: `expected text, found ${kindOf(value)}` });
    })
    .optional();

/**
 * A list, or a single value read as a one-item list (D1); absent or null is empty. An item that
 * does not fit is named by its index, so only it is left out.
 */
const list = (fits: (item: unknown) => boolean, expected: string) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value == null) return;
      // A `!!set` is the list of its members, as Python iterates it; one that does not fit goes whole.
      if (value instanceof Set) {
        if (![...value].every(fits)) ctx.addIssue({ code: 'custom', message: `expected ${expected}, found a set` });
        return;
      }
      if (!Array.isArray(value)) {
        if (!fits(value)) ctx.addIssue({ code: 'custom', message: `expected ${expected}, found ${kindOf(value)}` });
        return;
      }
      value.forEach((item, index) => {
        if (!fits(item))
          ctx.addIssue({ code: 'custom', path: [index], message: `expected text, found ${kindOf(item)}` });
      });
    })
    .optional();

/** A list of text: numbers and true/false as their text. */
const textList = () => list(isScalar, 'a list of text');
/** Entity tags: only items written as text, as the engine keeps them (`[1, true, 't']` → `['t']`). */
const tagList = () => list((item) => typeof item === 'string', 'a list of text');

export const entityRow = lazy(() =>
  z
    .object({
      name: text(true),
      type: optionalText(),
      aliases: textList(),
      summary: optionalText(),
      tags: tagList(),
      valid_to: optionalText(),
      visibility: z.unknown().optional(),
    })
    .transform((row) => ({
      // Answered stripped, so ' Orbit ' merges with another agent's 'Orbit'.
      name: intern(asName(row.name as Scalar).trim()),
      type: asSetText(row.type),
      aliases: asList(row.aliases, asName),
      summary: asSetText(row.summary),
      tags: asList(row.tags),
      // Only a date written as text ends an entity's life, as the engine reads it.
      valid_to: typeof row.valid_to === 'string' && row.valid_to !== '' ? intern(row.valid_to) : null,
      // Absent is public, an unknown label private (D8): never refused. The manifest's
      // visibility_policy, when it has one, is applied by the reader (lenient-reader.ts, D19).
      visibility: rowLevel(row, null),
      ...textOnly({ aliases: row.aliases }, undefined, row.summary),
    })),
);

/**
 * A session an exporter wrote with an empty date (copilot-vscode's transcript without a start
 * time, at parity with the engine): recorded as undated on purpose. It is not served (D17), and
 * since it is what our own exporters write, reading it back is no misfit: no warning, and doctor
 * reports it as information.
 */
export function isRecordedUndated(row: unknown): boolean {
  return isObject(row) && row.date === '';
}

export const sessionRow = lazy(() =>
  z
    .object({
      date: text(true),
      cwd: optionalText(),
      project_focus: textList(),
      key_actions: textList(),
      files_touched: textList(),
      visibility: z.unknown().optional(),
    })
    .transform((row) => {
      const date = asText(row.date as Scalar);
      // A date that names no real day (`2026-13-01`, `soon`) leaves the session undated: it is
      // dropped wherever a date window applies and never the newest.
      const day = dayOf(date);
      return {
        date,
        day: day === null ? null : intern(day),
        cwd: asOptionalText(row.cwd),
        project_focus: asList(row.project_focus),
        key_actions: asList(row.key_actions),
        files_touched: asList(row.files_touched),
        visibility: rowLevel(row, null),
        ...textOnly(
          { project_focus: row.project_focus, key_actions: row.key_actions, files_touched: row.files_touched },
          row.cwd,
        ),
      };
    }),
);

export const noteRow = lazy(() =>
  z
    .object({
      date: text().superRefine((value, ctx) => {
        if (isScalar(value) && dayOf(pyStr(value)) === null)
          ctx.addIssue({ code: 'custom', message: 'expected a date (YYYY-MM-DD)' });
      }),
      text: text(true),
      title: optionalText(),
      tags: textList(),
      project_focus: textList(),
      visibility: z.unknown().optional(),
    })
    .transform((row) => {
      const date = asText(row.date as Scalar);
      return {
        date,
        day: intern(dayOf(date) ?? date),
        text: asText(row.text as Scalar),
        title: asOptionalText(row.title),
        tags: asList(row.tags),
        project_focus: asList(row.project_focus),
        visibility: rowLevel(row, null),
      };
    }),
);

export const agentBlock = lazy(() =>
  z
    .object({ type: optionalText(), instance: optionalText(), role_narrative: optionalText() })
    .optional()
    .transform((block) => ({
      type: asSetText(block?.type),
      instance: asSetText(block?.instance),
      role_narrative: asSetText(block?.role_narrative),
    })),
);

/** A list of rows: each row is read on its own (lenient-reader.ts), so one that does not fit costs only itself. */
const rowList = () =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (value != null && !Array.isArray(value))
        ctx.addIssue({ code: 'custom', message: `expected a list, found ${kindOf(value)}` });
    })
    .optional();

/** A manifest's blocks as the store reads them (the agent id is read apart: manifest-file.ts). */
export const manifestBlocks = lazy(() =>
  z.object({
    agent: agentBlock(),
    last_updated: optionalText(),
    capabilities: rowList(),
    known_entities: rowList(),
    recent_sessions: rowList(),
    notes: rowList(),
  }),
);

export type Entity = z.output<ReturnType<typeof entityRow>>;
export type Session = z.output<ReturnType<typeof sessionRow>>;
export type Note = z.output<ReturnType<typeof noteRow>>;
export type AgentInfo = z.output<ReturnType<typeof agentBlock>>;
/** A manifest's blocks and rows as the store reads them. */
export interface ManifestRows {
  agent: AgentInfo;
  last_updated: string | null;
  capabilities: unknown[];
  entities: Entity[];
  sessions: Session[];
  notes: Note[];
}

/** Defined, not assigned: a key like "__proto__" is a key like any other. */
export function defineKey(target: RawObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Longest field path a warning names (a hostile key is cut, never printed whole). */
const MAX_PATH_CHARS = 120;

/** Where a value is, as `known_entities[3].name` (or in a peer's answer, `agents[0].parse_error`); characters that could upset a terminal shown as `?`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  const text = path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part).replace(/[^\w-]/g, '?')}`,
    )
    .join('');
  return text.length > MAX_PATH_CHARS ? `${text.slice(0, MAX_PATH_CHARS)}…` : text;
}

/** The kind of a value, as a warning names it. */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isPyNumber(value)) return 'a number';
  if (value instanceof Set) return 'a set';
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'string' ? 'text' : `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  array: 'a list',
  object: 'a mapping',
  string: 'text',
  nonoptional: 'a value',
};

export type Path = readonly (string | number)[];

/** The value at `path` in `value`, or undefined when there is none. */
export function valueAt(value: unknown, path: Path): unknown {
  let found = value;
  for (const part of path) {
    if (Array.isArray(found) && typeof part === 'number') found = found[part];
    else if (isObject(found) && Object.prototype.hasOwnProperty.call(found, part)) found = found[part];
    else return undefined;
  }
  return found;
}

/** Why a value does not fit, naming the kind of value found and never the value itself. */
export function describeMisfit(issue: z.core.$ZodIssue, doc: unknown): string {
  const value = valueAt(
    doc,
    issue.path.filter((part): part is string | number => typeof part !== 'symbol'),
  );
  if (issue.code === 'invalid_type')
    return `expected ${EXPECTED[issue.expected] ?? issue.expected}, found ${kindOf(value)}`;
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map(String).join(', ')}`;
  return issue.message;
}

// What a participant writes (checked before it is written: participants/runner.ts).

const level = () => z.enum(ACCESS_LEVELS);
const writtenText = () => z.string();
const writtenList = () => z.array(z.string());
/**
 * A value some sources pass through raw (cascade's entity `type` and `summary`, its session
 * `cwd`: the participants README): text, a number or true/false, which the read rows read back
 * as text (D7); a number as front matter reads it too (a PyFloat, a PyInt past 2^53), written as
 * PyYAML writes it. Anything else there is left out of the export, never the whole export (runner.ts).
 */
const writtenScalar = () =>
  z.union([z.string(), z.number(), z.boolean(), z.custom<PyFloat | PyInt>((value) => isPyNumber(value))]);
const writtenScalarList = () => z.array(writtenScalar());

/** An entity as a participant writes it (spec §2.3); keys beyond these are the participant's own. */
export const writtenEntity = lazy(() =>
  z.looseObject({
    name: writtenText().refine((name) => name.trim() !== '', { error: 'expected a name' }),
    type: writtenScalar().optional(),
    aliases: writtenScalarList().optional(),
    summary: writtenScalar().optional(),
    last_touched: writtenText().optional(),
    tags: writtenList().optional(),
    visibility: level().optional(),
    valid_from: writtenText().optional(),
    valid_to: writtenText().optional(),
  }),
);
export type WrittenEntity = z.input<ReturnType<typeof writtenEntity>>;

export const writtenSession = lazy(() =>
  z.looseObject({
    // The engine writes a session whose source had no date with an empty one (the reader skips it).
    date: writtenText(),
    cwd: writtenScalar().optional(),
    project_focus: writtenScalarList().optional(),
    key_actions: writtenScalarList().optional(),
    files_touched: writtenScalarList().optional(),
    visibility: level().optional(),
  }),
);

export type WrittenSession = z.input<ReturnType<typeof writtenSession>>;

const visibilityPolicy = lazy(() =>
  z.looseObject({
    default: level(),
    private_tags: writtenList().optional(),
    team_tags: writtenList().optional(),
  }),
);

/** A whole manifest as a participant hands it to the writer. */
export const writtenManifest = lazy(() =>
  z.looseObject({
    spec_version: writtenText(),
    agent: z.looseObject({
      id: writtenText(),
      type: writtenText(),
      instance: writtenText().optional(),
      spec_version_compat: writtenText().optional(),
      role_narrative: writtenText().optional(),
    }),
    last_updated: writtenText(),
    capabilities: writtenList().optional(),
    recent_sessions: z.array(writtenSession()).optional(),
    known_entities: z.array(writtenEntity()).optional(),
    visibility_policy: visibilityPolicy().optional(),
  }),
);

export type WrittenManifest = z.input<ReturnType<typeof writtenManifest>>;

/** The first place a participant's manifest does not fit the model, as one line; null when it fits. */
export function writtenManifestMisfit(manifest: unknown): string | null {
  const parsed = writtenManifest().safeParse(manifest);
  if (parsed.success) return null;
  // A failed parse names at least one issue.
  const issue = parsed.error.issues[0]!;
  return `${fieldPath(issue.path) || '(the manifest)'}: ${describeMisfit(issue, manifest)}`;
}
