/**
 * `--since`, one value for every participant (`ExportEnvironment.since`), and the named rules by
 * which each keeps a dated row. The engine's exporters do not cut alike, and we keep their
 * differences (docs/participants.md), but each is one rule here, written once:
 *
 * - `keepDay(date)`: a row whose date sorts on or after the day `--since` names, compared as
 *   text by code points (an empty date sorts before every day, so it goes). Most participants.
 * - `keepDayOrUndated(date)`: the same, but a row without a date (`''`) is kept (copilot-vscode,
 *   the Claude desktop surfaces).
 * - `keepDayAtInstant(date)`: the day the row's ISO date names, at midnight UTC, is not before
 *   the instant `--since` names; a date that does not parse is kept (cascade).
 * - `keepInstant(date)`: the instant the row's ISO date names (Python's `fromisoformat`, no offset
 *   read as UTC) is not before the instant `--since` names (a day: its midnight UTC); a date that
 *   does not parse is kept (openclaw).
 * - `dayStart()`: the bound a database compares its own timestamps with, the day's midnight as
 *   `YYYY-MM-DDT00:00:00+00:00` (copilot-cli's `created_at >= ?`).
 *
 * Without `--since` (or with one that names no day) every rule keeps every row.
 */
import { isoCalendarDate, isoInstant } from '../../core/native/python-dates.js';
import { compareCodePoints } from '../../core/native/python-values.js';
import { parseCalendarDay } from '../../core/store/dates.js';

/**
 * The instant a `--since` text names: a date is its midnight UTC, a time without an offset is
 * read as UTC. undefined when the text is not a day or an ISO time.
 */
export function sinceInstant(value: string | undefined): Date | undefined {
  if (value === undefined || !parseCalendarDay(value.trim())) return undefined;
  let text = value.trim().replace(' ', 'T');
  const zone = /(?:Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (text.includes('T') && !zone) text += 'Z';
  else if (zone && /^[+-]\d{4}$/.test(zone[0])) text = `${text.slice(0, -2)}:${text.slice(-2)}`;
  const moment = Date.parse(text);
  return Number.isNaN(moment) ? undefined : new Date(moment);
}

export class Since {
  /** The calendar day `--since` names (`YYYY-MM-DD`), when it names one. */
  readonly day: string | undefined;
  /** The instant it names (a date is its midnight UTC; a time without an offset is UTC). */
  readonly instant: Date | undefined;
  /** The instant as `fromisoformat` reads it, in milliseconds (a day: its midnight UTC). */
  private readonly cutoff: number | undefined;

  /** `text`: `--since` as the export resolved it (a relative form already the day it names). */
  constructor(readonly text: string) {
    this.day = parseCalendarDay(text) ?? undefined;
    this.instant = sinceInstant(text);
    this.cutoff = isoInstant(text) ?? (this.day === undefined ? undefined : Date.parse(`${this.day}T00:00:00Z`));
  }

  /** Most participants: a row dated before the day goes (dates compared as text); an empty date goes too. */
  keepDay(date: string): boolean {
    return this.day === undefined || compareCodePoints(date, this.day) >= 0;
  }

  /** copilot-vscode, the Claude desktop surfaces: as `keepDay`, but an undated row (`''`) is kept. */
  keepDayOrUndated(date: string): boolean {
    return date === '' || this.keepDay(date);
  }

  /** cascade: the row's ISO date at midnight UTC against the instant; a date that does not parse is kept. */
  keepDayAtInstant(date: string): boolean {
    if (this.instant === undefined) return true;
    const day = isoCalendarDate(date);
    return day === undefined || Date.parse(`${day}T00:00:00Z`) >= this.instant.getTime();
  }

  /** openclaw: the row's instant against the instant `--since` names; a date that does not parse is kept. */
  keepInstant(date: string): boolean {
    if (this.cutoff === undefined) return true;
    const at = isoInstant(date);
    return at === undefined || at >= this.cutoff;
  }

  /** copilot-cli: the day's midnight as the database writes its timestamps; undefined without a day. */
  dayStart(): string | undefined {
    return this.day === undefined ? undefined : `${this.day}T00:00:00+00:00`;
  }
}

/** The `Since` of a `--since` text; undefined without one. */
export function sinceOf(text: string | undefined): Since | undefined {
  return text === undefined ? undefined : new Since(text);
}

/** No `--since`: every rule keeps every row. */
const UNBOUNDED = new Since('');

/** The rules of an export's `--since` (its environment's), which keep every row when it has none. */
export function sinceRules(environment: { readonly since?: Since }): Since {
  return environment.since ?? UNBOUNDED;
}
