/**
 * User preferences from Codex memory (`User preferences` / `Preference signals` bullets) as
 * entities: well-known ones get canonical names (`backend-first delivery preference`, `git
 * checkpoint workflow`, …), others a name from up to six non-generic words.
 */
import { GENERIC_WORDS } from './projects.js';
import { LIMITS, scrub } from './scrubber.js';
import { PyPattern, normalizeText, pyRegex, strip, stripChars } from './text.js';

const TASK_SUFFIX = pyRegex('\\s*\\[Task\\s+\\d+\\]\\s*$', 'i');

/** The bullet without its `[Task N]` reference and end punctuation. */
function cleanPreferenceText(text: string): string {
  return stripChars(normalizeText(text).replace(TASK_SUFFIX, ''), ' .');
}

const WAIT_OR_STOP = new PyPattern('\\b(wait|stop)\\b');
const LEADING_PHRASES = [
  pyRegex('^for\\s+'),
  pyRegex('^future\\s+'),
  pyRegex('^the user (?:wants|prefers|gave|says|likes)\\s+'),
  pyRegex('^user (?:wants|prefers|gave|says|likes)\\s+'),
  pyRegex('^prefer(?:s|red)?\\s+'),
  pyRegex('^default to\\s+'),
];
const QUOTE_BETWEEN = /[^a-z0-9]["'`][^a-z0-9]/gu;
const NAME_TOKEN = /[a-z][a-z0-9-]{2,}/g;

function canonicalName(lower: string): string | undefined {
  const has = (...words: string[]): boolean => words.every((word) => lower.includes(word));
  const any = (...words: string[]): boolean => words.some((word) => lower.includes(word));
  if (any('backend-first', 'backend first')) return 'backend-first delivery preference';
  if (has('cross-machine') || (has('commit', 'push') && any('mac', 'ios', 'xcode')))
    return 'cross-machine handoff workflow';
  if (has('machine switch', 'branch', 'checkpoint')) return 'machine-switch checkpoint workflow';
  if (any('old-to-new letter translation', 'drive letter')) return 'drive-letter translation';
  if (has('handoff playbook')) return 'reusable handoff playbook';
  if (has('implemented architecture', 'intended architecture')) return 'architecture stage reporting';
  if (any('full native ios', 'full rewrite')) return 'full-platform migration planning';
  if (has('reinstall') && any('handoff', 'recovery', 'offline')) return 'reinstall recovery handoff';
  if (any('exact path', 'exact paths')) return 'exact-path operational guidance';
  if (WAIT_OR_STOP.test(lower)) return 'stop/wait interruption preference';
  if (has('git', 'commit', 'push')) return 'git checkpoint workflow';
  return undefined;
}

/** The entity name for a preference bullet. */
function preferenceName(text: string): string {
  const lower = cleanPreferenceText(text).toLowerCase();
  const canonical = canonicalName(lower);
  if (canonical) return canonical;
  const arrow = lower.indexOf('->');
  let candidate = arrow === -1 ? lower : strip(lower.slice(arrow + 2));
  for (const phrase of LEADING_PHRASES) candidate = candidate.replace(phrase, '');
  candidate = (candidate.split(/[:.;]/)[0] ?? '').replace(QUOTE_BETWEEN, ' ');
  const tokens = (candidate.match(NAME_TOKEN) ?? []).filter((token) => !GENERIC_WORDS.has(token));
  if (tokens.length === 0) return 'codex preference';
  let name = tokens.slice(0, 6).join(' ');
  if (!name.endsWith('preference')) name = `${name} preference`;
  return scrub(name, LIMITS.preferenceName);
}

export interface PreferenceFields {
  readonly name: string;
  readonly summary: string;
  readonly tags: string[];
}

export function preferenceFields(text: string): PreferenceFields {
  const clean = cleanPreferenceText(text);
  const name = preferenceName(clean);
  const tags = ['codex-preference'];
  if (name.includes('workflow') || name.includes('handoff')) tags.push('workflow');
  return { name, summary: scrub(`User preference: ${clean}`, LIMITS.preferenceSummary), tags };
}
