/**
 * A YAML 1.1 timestamp as the Python engine's front-matter reader (PyYAML's safe_load) builds
 * it, for `parseYaml11LikePyYaml` in yaml.ts, and how Python prints it. Apart from yaml.ts so the
 * participants that print front-matter values use the type without the YAML module.
 */
import { PythonObject } from '../python-str.js';

/**
 * A YAML 1.1 timestamp as PyYAML constructs it: a `datetime.date`, or a `datetime.datetime` with
 * microseconds and an optional fixed offset. Kept as its parts, not as a JavaScript Date, which
 * would lose the offset, the microseconds and the difference between a date and midnight.
 */
export class YamlTimestamp extends PythonObject {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    /** [hour, minute, second, microsecond], or undefined for a date. */
    readonly time?: readonly [number, number, number, number],
    /** The offset in minutes east of UTC, or undefined for a naive datetime. */
    readonly offsetMinutes?: number,
  ) {
    super();
  }

  /** A date or datetime is always true. */
  truthy(): boolean {
    return true;
  }

  /** Python's `str()`: `2026-04-27`, `2026-04-30 09:15:00`, `… 09:15:00.500000+02:00`. */
  toString(): string {
    const date = `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)}`;
    if (!this.time) return date;
    const [hour, minute, second, micro] = this.time;
    let text = `${date} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${micro ? `.${pad(micro, 6)}` : ''}`;
    if (this.offsetMinutes !== undefined) {
      const sign = this.offsetMinutes < 0 ? '-' : '+';
      const minutes = Math.abs(this.offsetMinutes);
      text += `${sign}${pad(Math.floor(minutes / 60), 2)}:${pad(minutes % 60, 2)}`;
    }
    return text;
  }

  /** Python's `repr()`: `datetime.date(2026, 4, 27)`, `datetime.datetime(2026, 4, 30, 9, 15)`. */
  repr(): string {
    if (!this.time) return `datetime.date(${this.year}, ${this.month}, ${this.day})`;
    const [hour, minute, second, micro] = this.time;
    const parts = [this.year, this.month, this.day, hour, minute];
    if (second || micro) parts.push(second);
    if (micro) parts.push(micro);
    let zone = '';
    if (this.offsetMinutes === 0) zone = ', tzinfo=datetime.timezone.utc';
    else if (this.offsetMinutes !== undefined) {
      // timedelta normalises to days and non-negative seconds: -2h is days=-1, seconds=79200.
      const seconds = this.offsetMinutes * 60;
      const delta = seconds < 0 ? `days=-1, seconds=${86_400 + seconds}` : `seconds=${seconds}`;
      zone = `, tzinfo=datetime.timezone(datetime.timedelta(${delta}))`;
    }
    return `datetime.datetime(${parts.join(', ')}${zone})`;
  }
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** PyYAML's implicit timestamp resolver: a date needs two-digit month and day (`2026-4-2` is text). */
export const TIMESTAMP_IMPLICIT =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
/** PyYAML's timestamp constructor's pattern (an explicit `!!timestamp` may use one-digit parts). */
const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

/** PyYAML's `construct_yaml_timestamp`; throws where Python's date or datetime would (2026-02-30). */
export function constructTimestamp(source: string): YamlTimestamp {
  const match = TIMESTAMP_PARTS.exec(source);
  if (!match) throw new Error('not a timestamp');
  const [, y, mo, d, h, mi, s, fraction, zone, sign, zoneHour, zoneMinute] = match;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (year < 1 || days === undefined || day < 1 || day > days) throw new Error('day is out of range for month');
  if (h === undefined) return new YamlTimestamp(year, month, day);
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (hour > 23 || minute > 59 || second > 59) throw new Error('time out of range');
  const micro = fraction ? Number(fraction.slice(0, 6).padEnd(6, '0')) : 0;
  let offset: number | undefined;
  if (sign) {
    offset = (Number(zoneHour) * 60 + Number(zoneMinute ?? 0)) * (sign === '-' ? -1 : 1);
    // datetime.timezone accepts offsets strictly within a day.
    if (Math.abs(offset) >= 24 * 60) throw new Error('offset out of range');
  } else if (zone) offset = 0;
  return new YamlTimestamp(year, month, day, [hour, minute, second, micro], offset);
}
