/**
 * How compile_codex_turn scores a turn's candidates, as the engine does: the six components
 * (prompt, the turn's folder and repository, recency, cross-agent agreement, continuity, a
 * penalty), the gate a row must pass, the engine's order, and the first rows of it
 * (compile.ts builds the brief from them).
 */
import { calendarDayOf } from '../../native/python-dates.js';
import { codePointLength, containsWord } from '../../native/scrub.js';
import type { Candidate } from './candidates.js';
import type { gatherCandidates } from './gather.js';
import type { PromptView } from './prompt-match.js';
import { expandUser, resolveLoose, type RepoIdentity } from './repo.js';

/** Names too common to say where a turn is (a folder called `notes` says nothing). */
const GENERIC_NAMES = new Set([
  'memory',
  'memories',
  'notes',
  'project',
  'session',
  'thread',
  'workspace',
  'repo',
  'repository',
]);

/** The score of one row, by component. */
export type Components = Record<'prompt' | 'cwd_repo' | 'recency' | 'cross_agent' | 'continuity' | 'penalty', number>;

/** Days since the epoch of a `YYYY-MM-DD`, for ages and order. */
function epochDay(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / 86_400_000;
}

/** What scoring needs of the turn, worked out once. */
export interface TurnScene {
  readonly prompt: PromptView;
  /** The prompt asks to go on with something (continue, next, this repo, …). */
  readonly continuation: boolean;
  readonly cwd: string | null;
  readonly repo: RepoIdentity;
  /** The repository's name and remote, lower-cased ('' without), and the folder's name lower-cased. */
  readonly repoName: string;
  readonly remote: string;
  readonly cwdBase: string;
  readonly home: string;
  readonly serverCwd: string;
  /** Today, UTC, in days since the epoch. */
  readonly today: number;
  readonly resolved: Map<string, string>;
  readonly dayCache: Map<string, number | null>;
}

/** A date text's day (days since the epoch), or null when it names none; remembered per turn. */
function dayNumber(scene: TurnScene, dateText: string | null): number | null {
  if (!dateText) return null;
  let day = scene.dayCache.get(dateText);
  if (day === undefined) {
    const calendar = calendarDayOf(dateText);
    day = calendar === undefined ? null : epochDay(calendar);
    scene.dayCache.set(dateText, day);
  }
  return day;
}

function ageDays(scene: TurnScene, dateText: string | null): number | null {
  const day = dayNumber(scene, dateText);
  return day === null ? null : Math.max(0, scene.today - day);
}

function recencyScore(scene: TurnScene, dateText: string | null): number {
  const age = ageDays(scene, dateText);
  if (age === null) return 0;
  if (age <= 1) return 15;
  if (age <= 7) return 12;
  if (age <= 30) return 8;
  return age <= 90 ? 4 : 1;
}

/** Is `inner` the folder `outer` or below it? */
function sameOrNested(inner: string, outer: string): boolean {
  if (inner === outer) return true;
  const prefix = outer.endsWith('/') ? outer : `${outer}/`;
  return inner.startsWith(prefix);
}

/** The repository component's reasons, in the engine's order; a score carries the set it met as bits. */
const CWD_REASONS = [
  'cwd matched prior Codex thread',
  'repo root matched prior Codex thread',
  'repo name matched candidate',
  'git remote reinforced repo identity',
  'cwd basename matched candidate',
];

function cwdScore(scene: TurnScene, candidate: Candidate): { score: number; reasons: number } {
  const { cwd, repo, repoName, remote } = scene;
  if (cwd === null && !repo.name) return { score: 0, reasons: 0 };
  let score = 0;
  let reasons = 0;
  // Name, summary, project focus and cwd, lower-cased: the candidate's `text`.
  const { text } = candidate;
  if (candidate.cwd && cwd) {
    const where = resolveLoose(expandUser(candidate.cwd, scene.home), scene.serverCwd, scene.resolved);
    if (sameOrNested(where, cwd)) {
      score = Math.max(score, 25);
      reasons |= 1;
    } else if (repo.root && sameOrNested(where, repo.root)) {
      score = Math.max(score, 22);
      reasons |= 2;
    }
  }
  if (repoName && text.includes(repoName) && containsWord(text, repoName)) {
    score = Math.max(score, 18);
    reasons |= 4;
  }
  if (repoName && remote && remote.includes(repoName) && candidate.lowerName.includes(repoName)) {
    score = Math.max(score, 14);
    reasons |= 8;
  }
  if (cwd !== null && text.includes(scene.cwdBase) && !GENERIC_NAMES.has(scene.cwdBase)) {
    score = Math.max(score, 15);
    reasons |= 16;
  }
  return { score, reasons };
}

/** `Path.name`: the last part ('' for the root). */
export function basename(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

/** The engine counts distinct agents; a candidate's list never repeats one (merges add only new ones). */
function crossAgentScore(agents: readonly string[]): number {
  const count = agents.length;
  return count <= 1 ? 0 : Math.min(10, 4 + (count - 1) * 2);
}

function continuityScore(scene: TurnScene, candidate: Candidate): number {
  let score = 0;
  if (candidate.filesTouched.length) score += 5;
  if ((candidate.kind === 'thread' || candidate.kind === 'session') && candidate.dateText)
    score += Math.min(5, recencyScore(scene, candidate.dateText) / 3);
  const { repoName } = scene;
  if (repoName && candidate.filesTouched.some((file) => file.toLowerCase().includes(repoName))) score += 3;
  if (scene.cwd && candidate.cwd) score += 2;
  return Math.min(10, score);
}

function penalty(scene: TurnScene, candidate: Candidate): number {
  let total = 0;
  if (GENERIC_NAMES.has(candidate.lowerName)) total -= 10;
  // (A string of at most 260 UTF-16 units has at most 260 code points: the count is rarely needed.)
  if (candidate.summary.length > 260 && codePointLength(candidate.summary) > 260) total -= 4;
  if (candidate.source === 'codex_l5' && candidate.dateText) {
    const age = ageDays(scene, candidate.dateText);
    if (age !== null && age > 30) total -= 4;
  }
  return total;
}

export interface Scored {
  candidate: Candidate;
  total: number;
  components: Components;
  /** What the reason is made of (it is written only for the rows a brief shows). */
  promptName: string;
  cwdReasons: number;
  /** Sort keys: the date's day (undated lowest) and the lower-cased name. */
  day: number;
  lowerName: string;
}

export function reasonOf({ promptName, cwdReasons, components }: Scored): string {
  const reasons: string[] = [];
  if (promptName) reasons.push(`prompt matched ${promptName}`);
  if (cwdReasons) reasons.push(CWD_REASONS.filter((_, bit) => cwdReasons & (1 << bit)).join('; '));
  if (components.cross_agent > 0) reasons.push('cross-agent agreement');
  if (components.recency >= 8) reasons.push('recent work');
  if (components.continuity > 0) reasons.push('continuity evidence');
  if (!reasons.length) reasons.push('weak but available recognition signal');
  return reasons.join('; ');
}

function passesGate(scene: TurnScene, candidate: Candidate, components: Components): boolean {
  if (components.prompt > 0) return true;
  if (!scene.continuation || candidate.kind === 'thread') return false;
  const { repoName } = scene;
  if (!repoName) return false;
  return containsWord([candidate.name, candidate.summary, ...candidate.projectFocus].join(' ').toLowerCase(), repoName);
}

/** Total first, then newer (undated last), then name, then source (a stable sort: ties keep gathering order). */
export function compareScored(a: Scored, b: Scored): number {
  if (a.total !== b.total) return b.total - a.total;
  if (a.day !== b.day) return b.day - a.day;
  if (a.lowerName !== b.lowerName) return a.lowerName < b.lowerName ? -1 : 1;
  return a.candidate.source === b.candidate.source ? 0 : a.candidate.source < b.candidate.source ? -1 : 1;
}

/**
 * The candidates that pass the gate, in gathering order (`ranked` orders them). The engine sorts
 * them all; a brief shows the first few and the trace names only rows sharing a shown row's kind
 * and name, so only those are ever put in order.
 */
export function scoreCandidates(scene: TurnScene, gathered: ReturnType<typeof gatherCandidates>): Scored[] {
  const scored: Scored[] = [];
  for (const { candidate, prompt } of gathered) {
    const cwd = cwdScore(scene, candidate);
    const components: Components = {
      prompt: prompt.score,
      cwd_repo: cwd.score,
      recency: recencyScore(scene, candidate.dateText),
      cross_agent: crossAgentScore(candidate.sourceAgents),
      continuity: continuityScore(scene, candidate),
      penalty: penalty(scene, candidate),
    };
    // Summed in the engine's order: float sums depend on it.
    const total =
      components.prompt +
      components.cwd_repo +
      components.recency +
      components.cross_agent +
      components.continuity +
      components.penalty;
    if (!passesGate(scene, candidate, components) || total <= 0) continue;
    scored.push({
      candidate,
      total,
      components,
      promptName: prompt.name,
      cwdReasons: cwd.reasons,
      // The engine's date ordinal is 0 for an undated row, below every real day.
      day: dayNumber(scene, candidate.dateText) ?? -Infinity,
      lowerName: candidate.lowerName,
    });
  }
  return scored;
}

/** The first `count` of `scored` in the engine's order: what a full stable sort would put first. */
export function ranked(scored: readonly Scored[], count: number): Scored[] {
  const top: Scored[] = [];
  for (const row of scored) {
    if (top.length === count && compareScored(row, top[count - 1]!) >= 0) continue;
    // After every row it does not rank above: a tie keeps gathering order, as a stable sort does.
    let at = top.length;
    while (at > 0 && compareScored(row, top[at - 1]!) < 0) at--;
    top.splice(at, 0, row);
    if (top.length > count) top.pop();
  }
  return top;
}
