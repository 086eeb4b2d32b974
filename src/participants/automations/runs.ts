/**
 * An automation's `memory.md` as the engine reads it: the dated runs it records, each run's
 * actions (filtered, scrubbed, de-duplicated, at most six), its title, and what its text
 * mentions — project hints and signal classes (conformance/participants/README.md,
 * "claude_code_automations"; copilot_automations keeps more lines and infers nothing).
 */
import { pySplitLines } from '../kit/markdown.js';
import { codePointLength, collapseAndCut, pyRstrip, pyStrip, scrubNativeText } from '../kit/scrub.js';

/** Only the end of a run memory is read: the engine keeps its last 160,000 characters. */
export const MEMORY_TAIL_CHARS = 160_000;
/** Actions kept per run. */
const ACTIONS_PER_RUN = 6;
const ACTION_LIMIT = 180;
const TITLE_LIMIT = 120;

export interface Run {
  /** The header's ten characters (`2026-04-28`; the digits are not validated). */
  readonly date: string;
  readonly actions: readonly string[];
}

/** Which lines of a run are bookkeeping rather than actions. */
export type ActionFilter = 'markers' | 'runtime-only';

/** A word character in Python's `re` (letters, digits, `_` of any script). */
const WORD = '[\\p{L}\\p{N}_]';
/** A run header: `DDDD-DD-DD` (Python's `\d`) at the start, then the end or a non-word character. */
const HEADER = new RegExp(`^(\\p{Nd}{4}-\\p{Nd}{2}-\\p{Nd}{2})(?!${WORD})`, 'u');
/** What is trimmed off a header's suffix: spaces, `-`, `:` and `—` (not other whitespace). */
const SUFFIX_TRIM = /^[ \-:—]+|[ \-:—]+$/g;

/** The last `count` code points of `text` (Python's `text[-count:]`). */
function lastCodePoints(text: string, count: number): string {
  if (text.length <= count) return text;
  const excess = codePointLength(text) - count;
  if (excess <= 0) return text;
  let start = 0;
  for (let skipped = 0; skipped < excess; skipped++) {
    const unit = text.charCodeAt(start);
    start += unit >= 0xd800 && unit <= 0xdbff && start + 1 < text.length ? 2 : 1;
  }
  return text.slice(start);
}

/**
 * The runs a memory text records, in file order. Lines before the first header are ignored;
 * every other line belongs to the latest header, whose suffix is the run's first line. A run
 * without actions is dropped.
 */
export function splitRuns(text: string, filter: ActionFilter): Run[] {
  const runs: { date: string; lines: string[] }[] = [];
  for (const raw of pySplitLines(lastCodePoints(text, MEMORY_TAIL_CHARS))) {
    const line = pyRstrip(raw);
    const date = HEADER.exec(pyStrip(line))?.[1];
    if (date !== undefined) {
      const suffix = pyStrip(line).slice(date.length).replace(SUFFIX_TRIM, '');
      runs.push({ date, lines: suffix ? [suffix] : [] });
    } else runs.at(-1)?.lines.push(line);
  }
  return runs
    .map((run) => ({ date: run.date, actions: runActions(run.lines, filter) }))
    .filter((run) => run.actions.length > 0);
}

/**
 * A run's actions: each line trimmed, one leading `- ` removed, bookkeeping lines skipped
 * (`runtime …`, and with `markers` also `first run`, `follow-up`, and the `run:` prefix),
 * scrubbed at 180, the first of equal ones kept, at most six.
 */
export function runActions(lines: readonly string[], filter: ActionFilter): string[] {
  const kept: string[] = [];
  for (const line of lines) {
    let text = pyStrip(line);
    if (text.startsWith('- ')) text = pyStrip(text.slice(2));
    if (!text) continue;
    const lower = text.toLowerCase();
    if (lower.startsWith('runtime')) continue;
    if (filter === 'markers') {
      if (lower === 'first run' || lower === 'follow-up') continue;
      if (lower.startsWith('run:')) text = pyStrip(text.slice(4));
    }
    const action = scrubNativeText(text, ACTION_LIMIT);
    if (!action || kept.includes(action)) continue;
    kept.push(action);
    if (kept.length === ACTIONS_PER_RUN) break;
  }
  return kept;
}

/** `<name>: <first action>` (the action alone when it already starts so), cut at 120. */
export function runTitle(name: string, run: Run, ellipsis: string): string {
  const first = run.actions[0] ?? '';
  return collapseAndCut(first.startsWith(`${name}: `) ? first : `${name}: ${first}`, TITLE_LIMIT, ellipsis);
}

/** The text hints and signals are looked for in: the run's actions, joined. */
function runText(run: Run): string {
  return run.actions.join(' ');
}

/**
 * The projects a run names: each hint found as a plain substring of the lower-cased text, in
 * hint order, unless one spelled alike in lower case was already found (`PRUN` after `Prun`).
 */
export function runProjects(run: Run, hints: readonly string[]): string[] {
  const text = runText(run).toLowerCase();
  const found: string[] = [];
  for (const hint of hints) {
    const lower = hint.toLowerCase();
    if (text.includes(lower) && !found.some((project) => project.toLowerCase() === lower)) found.push(hint);
  }
  return found;
}

export interface Signal {
  readonly name: string;
  readonly words: readonly string[];
}

/** A signal with its words compiled: any of them as a whole word, case-insensitively. */
export interface CompiledSignal {
  readonly name: string;
  readonly pattern: RegExp;
}

export function compileSignals(signals: readonly Signal[]): CompiledSignal[] {
  return signals.map(({ name, words }) => ({
    name,
    pattern: new RegExp(
      `(?<!${WORD})(?:${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?!${WORD})`,
      'iu',
    ),
  }));
}

/** The signal classes a run's text shows, in the list's order (`restore` is not `store`). */
export function runSignals(run: Run, signals: readonly CompiledSignal[]): string[] {
  const text = runText(run);
  return signals.filter((signal) => signal.pattern.test(text)).map((signal) => signal.name);
}
