/**
 * Projects as the codex rules find them: a project key from a working directory's basename
 * (generic words, the home's own name and generated workspace names are not projects), the
 * spelling to display, the names the memory repeats, and the project a session is about.
 */
import path from 'node:path';
import { normalizeLocalPath } from './paths.js';
import {
  PyPattern,
  codePointLength,
  escapeRegex,
  isLower,
  isUpperChar,
  pyRegex,
  pyTitle,
  strip,
  stripChars,
} from './text.js';

/** The memory's section lists this module reads (memory.ts builds them as `Sections`). */
interface MemoryLists {
  readonly lists: Readonly<Record<'task_groups' | 'task_titles' | 'keywords' | 'descriptions', readonly string[]>>;
}

/** Words that name no project (the engine's list; also the stop words of preference names). */
export const GENERIC_WORDS: ReadonlySet<string> = new Set(
  (
    'access add after align and android app apps api archive architecture assess assistant back backend backup ' +
    'backups billing bin build building bootstrap camerax chat check clean claude code codex commit compose config ' +
    'console contracts create current data decide desktop determine dev diagnose dns doc docs documents drive editor ' +
    'env exact fastify file files find finish fixtures folder folders for foundation fresh from full get git github ' +
    'google gradle handoff home improve implement install into ios inventory java jetpack kit kotlin layout letters ' +
    'local locate mac memory machine map model move migration monorepo native new new-project node notes npm off old ' +
    'onedrive parity play plan prepare preserve project projects push read react readiness recover recovery rebuild ' +
    'reinstall repo repos reset restore robocopy review root scaffold session sdk src state storage strategy studio ' +
    'swiftui the tooling triage update user users web with windows workspace save small merge inspect'
  ).split(' '),
);

function pathBasename(value: string | undefined): string | undefined {
  if (typeof value !== 'string' || !strip(value)) return undefined;
  const parts = strip(value)
    .split(/[\\/]+/)
    .filter(Boolean);
  return parts.length > 0 ? parts[parts.length - 1] : undefined;
}

const homeName = (home: string): string => path.basename(home).toLowerCase();

const DATED = pyRegex('^\\d{4}[-_ ]\\d{2}[-_ ]\\d{2}');
const DIGIT = /\p{Nd}/u;

/** Dated, `202…`, or `codex` with a digit: a workspace some tool generated, not a project. */
function looksGenerated(value: string): boolean {
  return DATED.test(value) || value.startsWith('202') || (value.includes('codex') && DIGIT.test(value));
}

/** The project key of a working directory (its basename, lower-cased), or undefined. */
export function projectKeyFromCwd(cwd: string | undefined, home: string): string | undefined {
  const basename = pathBasename(cwd);
  if (!basename) return undefined;
  const key = strip(basename).toLowerCase();
  if (GENERIC_WORDS.has(key) || GENERIC_WORDS.has(key.replaceAll(' ', '-'))) return undefined;
  if (key === homeName(home) || looksGenerated(key)) return undefined;
  return key;
}

/** `my_app-two` → `My App Two` (only an all-lower-case key is title-cased). */
export function friendlyLabel(identifier: string): string {
  const label = strip(identifier.replaceAll('_', ' ').replaceAll('-', ' '));
  return isLower(label) ? pyTitle(label) : label;
}

/** A word-bounded, case-insensitive matcher for a literal (`\\b<literal>\\b`, IGNORECASE). */
export function wordMatcher(literal: string): PyPattern {
  return new PyPattern(`\\b${escapeRegex(literal)}\\b`, 'i');
}

/** The spelling of a key the phrases use most (ties: capitalised, then longer), else its friendly label. */
export function bestDisplayName(identifier: string, phrases: readonly string[]): string {
  const pattern = wordMatcher(identifier);
  const lower = identifier.toLowerCase();
  const counts = new Map<string, number>();
  for (const phrase of phrases) {
    // Every match is the identifier in some case: a cheap check first.
    if (!phrase.toLowerCase().includes(lower)) continue;
    for (const match of pattern.matchAll(phrase)) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
  }
  if (counts.size === 0) return friendlyLabel(identifier);
  const ranked = [...counts.entries()].sort(
    ([a, x], [b, y]) => y - x || Number(isLower(a)) - Number(isLower(b)) || codePointLength(b) - codePointLength(a),
  );
  return ranked[0]?.[0] ?? friendlyLabel(identifier);
}

const TOKEN = /[A-Za-z][A-Za-z0-9-]{2,}/g;
const hasUpper = (token: string): boolean => [...token].some(isUpperChar);

/** Project keys the memory names at least twice (keywords, and the lead word of task groups). */
export function projectCandidates(memory: MemoryLists, home: string): string[] {
  const counts = new Map<string, number>();
  const stop = (candidate: string): boolean => GENERIC_WORDS.has(candidate) || candidate === homeName(home);
  const count = (candidate: string): void => {
    counts.set(candidate, (counts.get(candidate) ?? 0) + 1);
  };
  for (const keyword of memory.lists.keywords) {
    const tokens: string[] = keyword.match(TOKEN) ?? [];
    const [only] = tokens;
    if (only !== undefined && tokens.length === 1) {
      const candidate = stripChars(only, '-').toLowerCase();
      if (!stop(candidate)) count(candidate);
      continue;
    }
    for (const token of tokens) {
      const candidate = stripChars(token, '-').toLowerCase();
      if (!stop(candidate) && hasUpper(token)) count(candidate);
    }
  }
  for (const group of memory.lists.task_groups) {
    const tokens: string[] = group.match(TOKEN) ?? [];
    const [first] = tokens;
    if (first === undefined) continue;
    const lead = stripChars(first, '-');
    const candidate = lead.toLowerCase();
    if (stop(candidate)) continue;
    if (!(tokens.length === 1 || group === group.toLowerCase() || hasUpper(lead))) continue;
    count(candidate);
  }
  // Most frequent first; equal counts keep first-seen order (Counter.most_common).
  return [...counts.entries()]
    .sort(([, x], [, y]) => y - x)
    .filter(([candidate, n]) => n >= 2 && !looksGenerated(candidate))
    .map(([candidate]) => candidate);
}

interface ProjectMatcher {
  readonly label: string;
  readonly key: string;
  readonly lowerLabel: string;
  readonly byKey: PyPattern;
  readonly byLabel: PyPattern;
}

/** Chooses the project a session is about: its cwd's, else one its thread context or name mentions, else the only one. */
export class ProjectPicker {
  private readonly matchers: ProjectMatcher[];

  constructor(
    private readonly labels: ReadonlyMap<string, string>,
    private readonly preferred: readonly string[],
    private readonly home: string,
  ) {
    this.matchers = [...labels].map(([key, label]) => ({
      label,
      key: key.toLowerCase(),
      lowerLabel: label.toLowerCase(),
      byKey: wordMatcher(key),
      byLabel: wordMatcher(label),
    }));
  }

  private mentioned(phrases: readonly string[]): string | undefined {
    for (const phrase of phrases) {
      const lower = phrase.toLowerCase();
      for (const matcher of this.matchers) {
        if (lower.includes(matcher.key) && matcher.byKey.test(phrase)) return matcher.label;
        if (lower.includes(matcher.lowerLabel) && matcher.byLabel.test(phrase)) return matcher.label;
      }
    }
    return undefined;
  }

  pick(cwd: string | undefined, threadName: string, context: MemoryLists | undefined): string | undefined {
    const key = projectKeyFromCwd(cwd, this.home);
    if (key !== undefined && this.labels.has(key)) return this.labels.get(key);
    if (context) {
      const { task_groups, task_titles, keywords, descriptions } = context.lists;
      const found = this.mentioned([...task_groups, ...task_titles, ...keywords, ...descriptions]);
      if (found) return found;
    }
    const byName = this.mentioned([threadName]);
    if (byName) return byName;
    return this.preferred.length === 1 ? this.preferred[0] : undefined;
  }
}

/** A cwd inside some `.codex/memories` folder (the fallback memory's own check). */
export function looksLikeMemoriesPath(cwd: string | undefined): boolean {
  if (typeof cwd !== 'string' || !strip(cwd)) return false;
  const text = stripTrailingSlashes(cwd.replaceAll('\\', '/')).toLowerCase();
  return text.endsWith('/.codex/memories') || text.includes('/.codex/memories/');
}

function stripTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}

/** `str(Path(p))` on POSIX: repeated slashes and `.` parts collapsed, no trailing slash. */
function posixPathText(value: string): string {
  if (value === '') return '.';
  const leading = value.startsWith('//') && !value.startsWith('///') ? '//' : value.startsWith('/') ? '/' : '';
  const parts = value.split('/').filter((part) => part !== '' && part !== '.');
  return leading + parts.join('/') || '.';
}

function pathCompareText(value: string, platform: NodeJS.Platform): string {
  let raw = strip(value);
  if (raw.startsWith('\\\\?\\') || raw.startsWith('//?/')) raw = raw.slice(4);
  const normalized = normalizeLocalPath(raw, platform);
  const text = platform === 'win32' ? normalized : posixPathText(normalized);
  return stripTrailingSlashes(text.replaceAll('\\', '/')).toLowerCase();
}

/**
 * A test for sessions whose cwd is the Codex home's `memories` folder (Codex consolidating its
 * own memory).
 */
export function codexMemoryCwdTest(
  codexHome: string | undefined,
  platform: NodeJS.Platform,
): (cwd: string | undefined) => boolean {
  if (codexHome === undefined) return () => false;
  const memories = pathCompareText(path.join(codexHome, 'memories'), platform);
  return (cwd) => {
    if (!cwd) return false;
    const cwdText = pathCompareText(cwd, platform);
    return cwdText === memories || cwdText.startsWith(`${memories}/`);
  };
}
