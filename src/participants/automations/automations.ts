/**
 * Finding the automations in an automations folder and reading each one's `automation.toml`
 * and `memory.md`, as the engine does for all four automation participants: one folder per
 * automation, its TOML parsed (unreadable or invalid → an empty table), each field converted to
 * text as Python's `str()` prints what `tomllib` gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml, TomlDate } from 'smol-toml';
import type { SourceReader } from '../kit/source-reader.js';
import { truthy } from '../../core/python-str.js';
import { pyStrip } from '../kit/scrub.js';
import { splitRuns, MEMORY_TAIL_CHARS, type ActionFilter, type Run } from './runs.js';
import { specialKind } from '../../core/native/confined-reads.js';

/** automation.toml larger than this is not parsed (read as an empty table). */
const MAX_TOML_BYTES = 1024 * 1024;
/** Enough bytes for the last MEMORY_TAIL_CHARS characters: at most 4 bytes each, plus a cut one. */
const MEMORY_TAIL_BYTES = MEMORY_TAIL_CHARS * 4 + 4;

export interface Automation {
  /** The automation's folder, absolute. */
  readonly folder: string;
  readonly tomlFile: string;
  /** `<folder>/memory.md` when it is a file. */
  readonly memoryFile: string | undefined;
  readonly id: string;
  readonly name: string;
  /** Upper-cased; `UNKNOWN` when not given. */
  readonly status: string;
  /** The TOML table, for the fields a variant reads itself (rrule, cwds, trigger, kind, repos). */
  readonly table: Readonly<Record<string, unknown>>;
  /** The dated runs of memory.md, in file order. */
  readonly runs: readonly Run[];
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A TOML date, time or date-time as Python prints the `datetime` value tomllib gives. */
function pyDateTime(value: TomlDate): string {
  // TomlDate's ISO form is TOML's own: `2026-04-27`, `10:00:00.000`, `…T10:00:00.500Z`, `…-05:30`.
  const iso = value.toISOString();
  const clock = /(\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/.exec(iso);
  if (value.isDate() || !clock) return iso.slice(0, 10);
  const fraction = clock[2] && Number(clock[2]) !== 0 ? `.${clock[2].padEnd(6, '0').slice(0, 6)}` : '';
  const zone = clock[3] === 'Z' ? '+00:00' : (clock[3] ?? '');
  const time = `${clock[1]}${fraction}`;
  return value.isTime() ? time : `${iso.slice(0, 10)} ${time}${zone}`;
}

/** Python's repr of a float: the shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function pyFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${pad(Math.abs(exponent))}`;
  }
  const text = String(value);
  return text.includes('.') ? text : `${text}.0`;
}

/** Python's repr of a value inside a list or table. */
function pyRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    let body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    if (quote === "'") body = body.replace(/'/g, "\\'");
    return quote + body + quote;
  }
  if (value instanceof TomlDate) return pyDateTimeRepr(value);
  return tomlText(value);
}

/** Python's repr of the `datetime` value: `datetime.date(2026, 4, 27)`, `datetime.datetime(…, tzinfo=…)`. */
function pyDateTimeRepr(value: TomlDate): string {
  const text = pyDateTime(value);
  const parts =
    /^(?:(\d+)-(\d+)-(\d+))? ?(?:(\d+):(\d+):(\d+)(?:\.(\d+))?)?(?:([+-])(\d{2}):(\d{2}))?$/.exec(text) ?? [];
  const numbers = (from: number, to: number) => parts.slice(from, to).map((n) => Number(n ?? 0));
  const date = numbers(1, 4);
  const clock = numbers(4, 8);
  // Seconds and microseconds are left out when zero (microseconds needs the seconds before it).
  const time = clock[3] ? clock : clock[2] ? clock.slice(0, 3) : clock.slice(0, 2);
  if (value.isDate()) return `datetime.date(${date.join(', ')})`;
  if (value.isTime()) return `datetime.time(${time.join(', ')})`;
  let zone = '';
  if (parts[8] !== undefined) {
    const seconds = (parts[8] === '-' ? -1 : 1) * (Number(parts[9]) * 3600 + Number(parts[10]) * 60);
    const delta = seconds < 0 ? `days=-1, seconds=${86_400 + seconds}` : `seconds=${seconds}`;
    zone =
      seconds === 0 ? ', tzinfo=datetime.timezone.utc' : `, tzinfo=datetime.timezone(datetime.timedelta(${delta}))`;
  }
  return `datetime.datetime(${[...date, ...time].join(', ')}${zone})`;
}

/**
 * Python's `str()` of a value `tomllib` parsed: integers (bigint here) in decimal, floats as
 * Python prints them, `True`/`False`, dates and times in ISO form with a space before the
 * time, lists and tables in Python literal syntax.
 */
export function tomlText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pyFloat(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value instanceof TomlDate) return pyDateTime(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (isTable(value)) {
    return `{${Object.entries(value)
      .map(([key, item]) => `${pyRepr(key)}: ${pyRepr(item)}`)
      .join(', ')}}`;
  }
  return 'None';
}

/** `str(table[key]).strip()` when the value is truthy, else `fallback`. */
export function textField(table: Readonly<Record<string, unknown>>, key: string, fallback = ''): string {
  const value = table[key];
  return pyStrip(truthy(value) ? tomlText(value) : fallback);
}

/**
 * The non-blank string items of a list field (`cwds`, `repos`), untrimmed, in order, as the
 * engine iterates it: a string gives its characters, a table its keys. A number or boolean
 * cannot be iterated (the engine fails there): a truthy one is skipped with a warning.
 */
export function stringItems(
  table: Readonly<Record<string, unknown>>,
  key: string,
  file: string,
  reader: SourceReader,
): string[] {
  const value = table[key];
  if (!truthy(value)) return [];
  let items: unknown[];
  if (typeof value === 'string') items = [...value];
  else if (Array.isArray(value)) items = value;
  else if (isTable(value)) items = Object.keys(value);
  else {
    reader.warn(`${file}: ${key} is not a list (${tomlText(value)}); it is left out`);
    return [];
  }
  return items.filter((item): item is string => typeof item === 'string' && pyStrip(item) !== '');
}

/** The TOML table of a file: an empty one when it cannot be read or parsed (with a warning). */
function readTable(reader: SourceReader, file: string): Record<string, unknown> {
  const info = reader.stat(file);
  if (!info?.isFile()) {
    // null: outside the folders an export reads (the reader said so) or gone since it was listed.
    // A FIFO, a device or a socket the reader named already (one warning for one cause).
    if (info && !specialKind(info)) reader.warn(`${file}: not a regular file; read as an empty table`);
    return {};
  }
  const text = reader.readStrictText(file, { maxBytes: MAX_TOML_BYTES });
  if (text === null) return {};
  try {
    return parseToml(text, { integersAsBigInt: true });
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0];
    reader.warn(`${file}: not valid TOML (${reason}); read as an empty table`);
    return {};
  }
}

/**
 * The automations of a folder, in folder-name order: every `<folder>/automation.toml` one level
 * down (a folder without one is not an automation, whatever else it holds). An id that trims to
 * nothing leaves the automation out.
 */
export function readAutomations(reader: SourceReader, dir: string, filter: ActionFilter): Automation[] {
  const automations: Automation[] = [];
  for (const entry of reader.list(dir)) {
    const folder = path.join(dir, entry);
    const tomlFile = path.join(folder, 'automation.toml');
    // Absent, or a link that loops or leads to nothing (the reader warns of those): no automation.
    // One that leads outside the folders an export reads is refused and read as an empty table.
    if (!reader.stat(tomlFile) && !fs.existsSync(tomlFile)) continue;
    const table = readTable(reader, tomlFile);
    const id = textField(table, 'id', entry);
    if (!id) continue;
    const memoryPath = path.join(folder, 'memory.md');
    // A memory.md that is a broken link or leads out is named by the reader: no runs.
    const memoryFile = reader.isFile(memoryPath) ? memoryPath : undefined;
    const memory = memoryFile ? reader.readStrictText(memoryFile, { maxBytes: MEMORY_TAIL_BYTES, tail: true }) : null;
    automations.push({
      folder,
      tomlFile,
      memoryFile,
      id,
      name: textField(table, 'name', id),
      status: textField(table, 'status', 'UNKNOWN').toUpperCase(),
      table,
      runs: memory === null ? [] : splitRuns(memory, filter),
    });
  }
  return automations;
}
