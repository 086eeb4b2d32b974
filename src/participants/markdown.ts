/**
 * The Markdown conventions the engine's participants read notes with: YAML frontmatter, the
 * first H1, the first paragraph, and Python's str() of frontmatter values
 * (conformance/participants/README.md, "Frontmatter").
 */
import { createRequire } from 'node:module';
import type * as YamlPackage from 'yaml';
import { lazy } from '../core/lazy.js';

const require = createRequire(import.meta.url);
const yamlPackage = lazy(() => require('yaml') as typeof YamlPackage);

/** Frontmatter larger than this is not loaded: read as malformed (the whole text is the body). */
const MAX_FRONTMATTER_CHARS = 64 * 1024;

export interface Note {
  /** The frontmatter mapping; null when there is none, or it is not a mapping. */
  readonly meta: Record<string, unknown> | null;
  /** The text after the frontmatter; the whole text when there is no frontmatter to load. */
  readonly body: string;
}

const OPEN = '---\n';
const CLOSE = '\n---\n';

/**
 * Splits frontmatter from body as the engine's `_parse_frontmatter` does: a text that starts
 * with `---\n` and has a later `\n---\n` (looked for after the opening, so `---\n---\n` does
 * not close). The part between is loaded as PyYAML's safe_load would (YAML 1.1). YAML it
 * cannot load means no frontmatter and the whole text is the body; YAML that loads to anything
 * but a mapping (a list, a scalar, nothing) means no frontmatter and the body after the closing
 * line. (The format README says the whole text for both; the engine's code and issue 35 say not.)
 */
export function parseNote(text: string, maxFrontMatterChars = MAX_FRONTMATTER_CHARS): Note {
  if (!text.startsWith(OPEN)) return { meta: null, body: text };
  const end = text.indexOf(CLOSE, OPEN.length);
  if (end < 0) return { meta: null, body: text };
  const source = text.slice(OPEN.length, end);
  if (source.length > maxFrontMatterChars) return { meta: null, body: text };
  const loaded = loadYaml(source);
  if (!loaded) return { meta: null, body: text };
  return { meta: isMapping(loaded.value) ? loaded.value : null, body: text.slice(end + CLOSE.length) };
}

/**
 * A YAML 1.1 timestamp as PyYAML constructs it: a `datetime.date`, or a `datetime.datetime` with
 * microseconds and an optional fixed offset. Kept as its parts, not as a JavaScript Date, which
 * would lose the offset, the microseconds and the difference between a date and midnight.
 */
export class YamlTimestamp {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    /** [hour, minute, second, microsecond], or undefined for a date. */
    readonly time?: readonly [number, number, number, number],
    /** The offset in minutes east of UTC, or undefined for a naive datetime. */
    readonly offsetMinutes?: number,
  ) {}

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
const TIMESTAMP_IMPLICIT =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;
/** PyYAML's timestamp constructor's pattern (an explicit `!!timestamp` may use one-digit parts). */
const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

/** PyYAML's `construct_yaml_timestamp`; throws where Python's date or datetime would (2026-02-30). */
function constructTimestamp(source: string): YamlTimestamp {
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

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
const FLOAT_TAG = 'tag:yaml.org,2002:float';
/**
 * PyYAML's float resolver (but for .inf, .nan and base 60, which the yaml package reads as it
 * does): a digit before the point or after a bare one, and an exponent only with its sign, so
 * `1e3`, `E0` and `-.5` stay text.
 */
const PY_FLOAT = /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)$/;

/** The yaml package's YAML 1.1 tags, with PyYAML's timestamps and decimal floats. */
function pythonTags(tags: YamlPackage.Tags): YamlPackage.Tags {
  return tags.map((tag) => {
    if (typeof tag !== 'object' || 'collection' in tag) return tag;
    if (tag.tag === TIMESTAMP_TAG) return pythonTimestamp;
    const decimal = tag.tag === FLOAT_TAG && tag.format !== 'TIME' && !/nan/i.test(String(tag.test));
    return decimal ? { ...tag, test: PY_FLOAT } : tag;
  });
}
const pythonTimestamp = {
  identify: (value: unknown) => value instanceof YamlTimestamp,
  default: true,
  tag: TIMESTAMP_TAG,
  test: TIMESTAMP_IMPLICIT,
  resolve: constructTimestamp,
};

/**
 * The YAML loaded as PyYAML's safe_load would, or undefined where safe_load raises: a syntax
 * error, more than one document, a tag it has no constructor for (`!custom`), a timestamp that
 * names no real moment, or a list or mapping as a key (unhashable in Python). Timestamps load as
 * YamlTimestamp.
 */
export function loadYaml(source: string): { value: unknown } | undefined {
  const yaml = yamlPackage();
  try {
    // 'error': errors (a second document too) are kept, but no Node warning about a user's
    // note reaches stderr.
    const document = yaml.parseDocument(source, {
      version: '1.1',
      uniqueKeys: false,
      prettyErrors: false,
      logLevel: 'error',
      customTags: pythonTags,
    });
    if (document.errors.length > 0) return undefined;
    if (document.warnings.some((warning) => warning.code === 'TAG_RESOLVE_FAILED')) return undefined;
    let unhashableKey = false;
    yaml.visit(document, {
      Pair(_, pair) {
        const key = yaml.isAlias(pair.key) ? pair.key.resolve(document) : pair.key;
        if (!yaml.isCollection(key)) return undefined;
        unhashableKey = true;
        return yaml.visit.BREAK;
      },
    });
    if (unhashableKey) return undefined;
    // More aliases than this (an alias bomb) throws: read as malformed.
    return { value: document.toJS({ maxAliasCount: 100 }) };
  } catch {
    return undefined;
  }
}

/** A plain mapping, as PyYAML's dict (not a list, a Set, a Map from `!!omap`, a timestamp or bytes). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Python's whitespace (str.isspace), which differs from JavaScript's trim: U+001C–U+001F and U+0085 are, U+FEFF is not. */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
/** Python's str.splitlines() boundaries (after \r\n and \r were read as \n). */
// eslint-disable-next-line no-control-regex -- Python counts these as line breaks
export const PY_LINE_BREAK = /[\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

const PY_LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);

/** Python's str.strip(). */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

/** Python's str.splitlines() of a text whose \r\n and \r were already read as \n: no trailing empty line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(PY_LINE_BREAK);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python's str.lstrip(). */
export function pyStripStart(text: string): string {
  return text.replace(PY_LEADING_SPACE, '');
}

/** The text of the first `# ` heading line, or null. */
export function firstH1(body: string): string | null {
  const match = /^#[ \t]+(\S.*)$/m.exec(body);
  return match ? pyStrip(match[1]) : null;
}

/** A title cut at the first run of `-`, `—`, `–` or `:` followed by a space ("Orchard -- x" → "Orchard"). */
export function cutTitle(title: string): string {
  const match = /[-—–:]+\s/.exec(title);
  return pyStrip(match ? title.slice(0, match.index) : title);
}

/** The first run of non-blank lines not starting with `#`, each stripped, joined by a space. */
export function firstParagraph(body: string): string {
  const lines: string[] = [];
  for (const raw of body.split(PY_LINE_BREAK)) {
    const line = pyStrip(raw);
    if (!line || line.startsWith('#')) {
      if (lines.length) break;
      continue;
    }
    lines.push(line);
  }
  return lines.join(' ');
}

/** The first `limit` characters (code points, as Python slices). */
export function slice(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const points = [...text];
  return points.length > limit ? points.slice(0, limit).join('') : text;
}

/** The first `limit` characters, stripped. */
export function cut(text: string, limit: number): string {
  return pyStrip(slice(text, limit));
}

/** Python truthiness of a YAML value (None, False, 0, '', [] and {} are false). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && !(value instanceof YamlTimestamp)) return Object.keys(value).length > 0;
  return true;
}

/** A value converted to text (Python's `str()`) when it is truthy; undefined otherwise. */
export function truthyText(value: unknown): string | undefined {
  return pyTruthy(value) ? pyStr(value) : undefined;
}

/** Python's str() of a YAML value, as the engine turns frontmatter values into text. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return pyNumber(value);
  if (typeof value === 'bigint') return String(value);
  if (value instanceof YamlTimestamp) return value.toString();
  if (Array.isArray(value)) return '[' + value.map(pyRepr).join(', ') + ']';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return '{' + entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ') + '}';
  }
  return String(value);
}

function pyRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (value instanceof YamlTimestamp) return value.repr();
  return pyStr(value);
}

function pyNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
  const text = String(value);
  return /[.e]/.test(text) ? text.replace(/e\+?/, 'e+').replace('e+-', 'e-') : `${text}.0`;
}

/** Tags as the engine reads them: a YAML list, each item as str(); anything else means none. */
export function tagList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(pyStr) : [];
}
