/**
 * The Markdown conventions the engine's participants read notes with: YAML frontmatter, the
 * first H1, the first paragraph (Python's str() and truthiness of frontmatter values are the
 * core root's python-str.ts; conformance/participants/README.md, "Frontmatter").
 */
import { pyStr, truthy } from '../../core/python-str.js';
import { parseYaml11LikePyYaml } from '../../core/store/yaml.js';
import { pyStrip } from './scrub.js';

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
  const loaded = parseYaml11LikePyYaml(source);
  if (!loaded) return { meta: null, body: text };
  return { meta: isMapping(loaded.value) ? loaded.value : null, body: text.slice(end + CLOSE.length) };
}

/** A plain mapping, as PyYAML's dict (not a list, a Set, a Map from `!!omap`, a timestamp or bytes). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Python's str.splitlines() boundaries (after \r\n and \r were read as \n). */
// eslint-disable-next-line no-control-regex -- Python counts these as line breaks
export const PY_LINE_BREAK = /[\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python's str.splitlines() of a text whose \r\n and \r were already read as \n: no trailing empty line. */
export function pySplitLines(text: string): string[] {
  const lines = text.split(PY_LINE_BREAK);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text of the first `# ` heading line, or null. */
export function firstH1(body: string): string | null {
  const heading = /^#[ \t]+(\S.*)$/m.exec(body)?.[1];
  return heading === undefined ? null : pyStrip(heading);
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

/** A value converted to text (Python's `str()`) when it is truthy; undefined otherwise. */
export function truthyText(value: unknown): string | undefined {
  return truthy(value) ? pyStr(value) : undefined;
}

/** Tags as the engine reads them: a YAML list, each item as str(); anything else means none. */
export function tagList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(pyStr) : [];
}
