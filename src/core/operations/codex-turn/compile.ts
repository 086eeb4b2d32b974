/**
 * compile_codex_turn: a small ranked recognition brief for one Codex turn (schema
 * `codex-turn-brief/v1`), compiled from the prompt, the repository at the turn's folder, Codex's
 * own thread metadata and the library, as the engine compiles it (test/fixtures/conformance/turns
 * has the rules and the recorded cases). Read-only: nothing of Codex's or the library's is
 * written. The turns README says what each part of the brief is; docs/cli.md (`bourdon
 * compile-turn`) how the CLI shows it.
 */
import os from 'node:os';
import { agentsInScope, type OperationContext } from '../../context.js';
import { BourdonError } from '../../errors.js';
import { withPythonFloats } from '../../payload.js';
import { findCodexHome } from '../../native/codex-home.js';
import { codexTurnState, type Stage1Report } from '../../native/codex-state.js';
import { roundTenth } from '../../native/python-values.js';
import { codePointLength, codePointPrefix, pyStrip } from '../../native/scrub.js';
import { isAccessLevel, lowerLevel, type AccessLevel } from '../../trust/access.js';
import type { CompileTurnInput } from '../inputs.js';
import { clean, type CandidateKind } from './candidates.js';
import { gatherCandidates } from './gather.js';
import { preparedLibrary } from './library.js';
import { promptView, type PromptView } from './prompt-match.js';
import { detectRepo, resolveTurnCwd, type RepoIdentity } from './repo.js';
import {
  basename,
  compareScored,
  ranked,
  reasonOf,
  scoreCandidates,
  type Components,
  type Scored,
  type TurnScene,
} from './scoring.js';
import { threadCandidates } from './threads.js';

const TURN_SCHEMA_VERSION = 'codex-turn-brief/v1';
const STRATEGY = 'turn_compiled';
const MAX_PROMPT_CHARS = 8000;
const EXHAUSTED_PATHS = ['native_stage1_primary', 'static_fallback_primary', 'l5_export_only', 'sync_native_only'];
const CONTINUATION_TERMS = new Set([
  'continue',
  'next',
  'working',
  'work',
  'here',
  'this',
  'repo',
  'project',
  'focus',
  'resume',
  'again',
]);

export type NativeStage1 = 'available' | 'degraded' | 'unknown';

export interface TurnItem {
  rank: number;
  score: number;
  kind: CandidateKind;
  name: string;
  summary: string;
  reason: string;
  source: string;
  source_agents: string[];
  evidence: string[];
}

export interface TurnRouting {
  mode: 'inject' | 'observe';
  primary_surface: string;
  surfaces: string[];
  confidence: 'high' | 'medium' | 'low' | 'none';
  reason: string;
  suppressed_surfaces: string[];
  next_action: string;
}

export type CompileTurnOutput = {
  schema_version: string;
  prompt: string;
  cwd: string | null;
  repo: RepoIdentity;
  health: { native_stage1: NativeStage1; strategy: string };
  routing: TurnRouting;
  items: TurnItem[];
  delivery: {
    explicit_text: string;
    mcp_payload: {
      schema_version: string;
      strategy: string;
      native_stage1: NativeStage1;
      repo: RepoIdentity;
      items: TurnItem[];
      prompt_context: string;
    };
    memory_md_block: string;
    fallback_block: string;
    repo_overlay_block: string;
  };
  trace: {
    routing_decision: { primary_surface: string; confidence: string; reason: string };
    surface_health: { native_stage1: NativeStage1; repo_identity: 'available' | 'missing'; candidate_count: number };
    source_mix: {
      candidates: Record<string, number>;
      selected: Record<string, number>;
      ignored: Record<string, number>;
    };
    selected_items: { name: string; kind: string; score: number; dominant_components: string[]; reason: string }[];
  };
  diagnostics: {
    scoring_components: Record<string, Components>;
    candidate_count: number;
    delivery: 'all';
    max_items: number;
    max_chars: number;
    stage1_jobs: { total: number; by_status: Record<string, number>; error_classes: Record<string, number> };
    exhausted_paths: string[];
  };
};

/** Refusals the engine raises (ValueError), in its order: the first failing check answers. The level asked. */
function checkArguments(input: CompileTurnInput): AccessLevel {
  const asked = input.access_level;
  if (!isAccessLevel(asked)) {
    throw new BourdonError("access_level must be one of ['private', 'public', 'team']", 'invalid_input');
  }
  if (input.max_items < 1 || input.max_items > 20) {
    throw new BourdonError('max_items must be between 1 and 20', 'invalid_input');
  }
  if (input.max_chars < 400 || input.max_chars > 6000) {
    throw new BourdonError('max_chars must be between 400 and 6000', 'invalid_input');
  }
  return asked;
}

/** The prompt trimmed, and past 8,000 characters cut there and trimmed again. */
function boundedPrompt(prompt: string | null): string {
  const text = pyStrip(prompt ?? '');
  return codePointLength(text) > MAX_PROMPT_CHARS ? pyStrip(codePointPrefix(text, MAX_PROMPT_CHARS)) : text;
}

function classifyStage1(report: Stage1Report): NativeStage1 {
  if (!report.present) return 'unknown';
  const errors = report.byStatus.get('error') ?? 0;
  const done = report.byStatus.get('done') ?? 0;
  if (errors > 0 && errors >= done) return 'degraded';
  return done > 0 || report.outputs > 0 ? 'available' : 'unknown';
}

function isContinuation(prompt: PromptView): boolean {
  for (const token of prompt.tokenSet) if (CONTINUATION_TERMS.has(token)) return true;
  const normalized = prompt.tokens.join(' ');
  return normalized === 'what should i do' || normalized === 'what should i do next';
}

/** The brief's items: the first rows in the engine's order. */
function itemsOf(top: readonly Scored[]): TurnItem[] {
  return top.map((row, index) => ({
    rank: index + 1,
    score: roundTenth(row.total),
    kind: row.candidate.kind,
    name: clean(row.candidate.name, 120),
    summary: clean(row.candidate.summary || 'Recognition anchor.', 260),
    reason: reasonOf(row),
    source: row.candidate.source,
    source_agents: [...row.candidate.sourceAgents],
    evidence: row.candidate.evidence.slice(0, 4).map((item) => clean(item, 160)),
  }));
}

/** `f"{x:.1f}"`. */
const oneDecimal = (value: number): string => roundTenth(value).toFixed(1);

function explicitText(items: readonly TurnItem[], repo: RepoIdentity, stage1: NativeStage1, maxChars: number): string {
  const lines = ['Bourdon turn recognition brief', `Strategy: turn-scoped compiler; native Stage 1 is ${stage1}.`];
  if (repo.name) lines.push(`Repo: ${repo.name}`);
  if (!items.length) lines.push('No high-confidence recognition anchors found for this turn.');
  else {
    lines.push('Use these as recognition anchors, not as a final answer:');
    for (const item of items) {
      let line = `${item.rank}. ${item.name} [${item.kind}, ${item.source}, score ${oneDecimal(item.score)}]`;
      if (item.source_agents.length) line += ` via ${item.source_agents.slice(0, 4).join(', ')}`;
      lines.push(line, `   ${item.summary}`, `   Why: ${item.reason}`);
    }
  }
  const text = pyStrip(lines.join('\n'));
  if (codePointLength(text) <= maxChars) return text;
  return `${pyStrip(codePointPrefix(text, maxChars - 3))}...`;
}

function routingOf(
  items: readonly TurnItem[],
  scored: readonly Scored[],
  repo: RepoIdentity,
  stage1: NativeStage1,
): TurnRouting {
  const top = items[0];
  if (top === undefined) {
    return {
      mode: 'observe',
      primary_surface: 'none',
      surfaces: [],
      confidence: 'none',
      reason: 'no high-confidence recognition anchors',
      suppressed_surfaces: ['native_stage1', 'memory_md', 'fallback_file'],
      next_action: 'continue without recognition injection',
    };
  }
  const confidence = top.score >= 50 ? 'high' : top.score >= 25 ? 'medium' : 'low';
  const primary = 'explicit_pre_turn';
  const surfaces: string[] = [primary];
  if (top.score >= 35) surfaces.push('mcp');
  if (repo.name && top.score >= 45) surfaces.push('repo_overlay_candidate');
  if (stage1 === 'available' && top.score >= 60) surfaces.push('native_memory_supporting');
  const suppressed: string[] = [];
  if (stage1 === 'degraded') suppressed.push('native_stage1_primary');
  if (confidence === 'low') suppressed.push('memory_md', 'fallback_file');
  const sources = new Set(scored.map(({ candidate }) => candidate.source)).size;
  const pieces = [`top anchor scored ${oneDecimal(top.score)}`, `source mix spans ${sources} surface(s)`];
  if (repo.name) pieces.push(`repo identity available as ${repo.name}`);
  if (stage1 === 'degraded') pieces.push('native Stage 1 is degraded, so active injection is preferred');
  return {
    mode: 'inject',
    primary_surface: primary,
    surfaces,
    confidence,
    reason: pieces.join('; '),
    suppressed_surfaces: suppressed,
    // The first surface is always the explicit pre-turn text.
    next_action: 'prepend delivery.explicit_text before the Codex turn',
  };
}

/** Counts by key, keys sorted (`dict(sorted(...))`). */
function sortedCounts(counts: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...counts.keys()].sort()) out[key] = counts.get(key)!;
  return out;
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function dominantComponents(components: Components): string[] {
  return Object.entries(components)
    .filter(([name, value]) => name !== 'penalty' && value > 0)
    .sort(([nameA, a], [nameB, b]) => b - a || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0))
    .slice(0, 3)
    .map(([name]) => name);
}

function traceOf(
  items: readonly TurnItem[],
  scored: readonly Scored[],
  repo: RepoIdentity,
  stage1: NativeStage1,
  routing: TurnRouting,
): CompileTurnOutput['trace'] {
  // Every row of a shown item's kind and name is "selected", in the engine's order.
  const shownKinds = new Map<string, string[]>();
  for (const item of items) {
    const lower = item.name.toLowerCase();
    shownKinds.set(lower, [...(shownKinds.get(lower) ?? []), item.kind]);
  }
  const selected: Scored[] = [];
  const candidates = new Map<string, number>();
  const chosen = new Map<string, number>();
  const ignored = new Map<string, number>();
  for (const item of items) bump(chosen, item.source);
  for (const row of scored) {
    bump(candidates, row.candidate.source);
    if (shownKinds.get(row.lowerName)?.includes(row.candidate.kind)) selected.push(row);
    else bump(ignored, row.candidate.source);
  }
  return {
    routing_decision: {
      primary_surface: routing.primary_surface,
      confidence: routing.confidence,
      reason: routing.reason,
    },
    surface_health: {
      native_stage1: stage1,
      repo_identity: repo.name ? 'available' : 'missing',
      candidate_count: scored.length,
    },
    source_mix: {
      candidates: sortedCounts(candidates),
      selected: sortedCounts(chosen),
      ignored: sortedCounts(ignored),
    },
    selected_items: selected
      .sort(compareScored)
      .slice(0, 10)
      .map((row) => ({
        name: row.candidate.name,
        kind: row.candidate.kind,
        score: roundTenth(row.total),
        dominant_components: dominantComponents(row.components),
        reason: reasonOf(row),
      })),
  };
}

function errorClass(lastError: string): string {
  const text = lastError.toLowerCase();
  if (text.includes('usage limit')) return 'usage_limit';
  if (text.includes('context window') || text.includes('ran out of room')) return 'context_window';
  return text ? 'other' : 'unknown';
}

function stage1Jobs(report: Stage1Report): CompileTurnOutput['diagnostics']['stage1_jobs'] {
  const classes = new Map<string, number>();
  for (const problem of report.problems) bump(classes, errorClass(problem.last_error));
  let total = 0;
  const byStatus: Record<string, number> = {};
  for (const [status, count] of report.byStatus) {
    byStatus[status] = count;
    total += count;
  }
  return { total, by_status: byStatus, error_classes: sortedCounts(classes) };
}

function roundedComponents(components: Components): Components {
  const out = { ...components };
  for (const key of Object.keys(out) as (keyof Components)[]) out[key] = roundTenth(out[key]);
  return out;
}

function overlayBlock(text: string, repo: RepoIdentity, items: readonly TurnItem[]): string {
  if (!repo.name || !items.length) return '';
  const lines = ['<!-- BEGIN BOURDON REPO OVERLAY CANDIDATE -->', `Repo overlay candidate for ${repo.name}`];
  if (repo.root) lines.push(`Repo root: ${repo.root}`);
  if (repo.remote) lines.push(`Remote: ${repo.remote}`);
  lines.push(
    'Use only as an explicit, human-reviewed overlay candidate.',
    '',
    text,
    '<!-- END BOURDON REPO OVERLAY CANDIDATE -->',
  );
  return lines.join('\n');
}

const block = (text: string, title: string): string => `<!-- BEGIN ${title} -->\n${text}\n<!-- END ${title} -->`;

/** The brief for one Codex turn; a refused argument is an `invalid_input` error carrying the engine's words. */
export async function compileCodexTurn(ctx: OperationContext, input: CompileTurnInput): Promise<CompileTurnOutput> {
  const prompt = boundedPrompt(input.prompt);
  // A caller capped below the level asked (a remote member) reads at its cap.
  const level = lowerLevel(checkArguments(input), ctx.caller.ceiling);
  const home = ctx.env.HOME || os.homedir();
  const serverCwd = process.cwd();
  const cwd = resolveTurnCwd(input.cwd, serverCwd, home);
  const repo = detectRepo(cwd);
  const codexHome = await findCodexHome({ home, cwd: serverCwd, env: ctx.env, platform: process.platform });
  const warnings: string[] = [];
  const state = await codexTurnState(codexHome, warnings);
  for (const warning of warnings) ctx.warn(warning);
  const stage1 = classifyStage1(state.stage1);

  const now = ctx.now();
  const view = promptView(prompt);
  const scene: TurnScene = {
    prompt: view,
    continuation: isContinuation(view),
    cwd,
    repo,
    repoName: (repo.name ?? '').toLowerCase(),
    remote: (repo.remote ?? '').toLowerCase(),
    cwdBase: cwd === null ? '' : basename(cwd).toLowerCase(),
    home,
    serverCwd,
    today: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) / 86_400_000,
    resolved: new Map(),
    dayCache: new Map(),
  };
  const continuationRepo = scene.continuation && scene.repoName ? scene.repoName : null;
  const gathered = gatherCandidates(
    preparedLibrary(agentsInScope(ctx), level),
    threadCandidates(state.threads),
    scene.prompt,
    continuationRepo,
  );
  const scored = scoreCandidates(scene, gathered);
  const top = ranked(scored, input.max_items);
  const items = itemsOf(top);
  const routing = routingOf(items, scored, repo, stage1);
  const text = explicitText(items, repo, stage1, input.max_chars);
  const scoring: Record<string, Components> = {};
  for (const { candidate, components } of top) scoring[candidate.name] = roundedComponents(components);
  return withPythonFloats(
    {
      schema_version: TURN_SCHEMA_VERSION,
      prompt,
      cwd,
      repo,
      health: { native_stage1: stage1, strategy: STRATEGY },
      routing,
      items,
      delivery: {
        explicit_text: text,
        mcp_payload: {
          schema_version: TURN_SCHEMA_VERSION,
          strategy: STRATEGY,
          native_stage1: stage1,
          repo,
          items,
          prompt_context: text,
        },
        memory_md_block: block(text, 'BOURDON TURN BRIEF'),
        fallback_block: block(text, 'Bourdon Turn Brief'),
        repo_overlay_block: overlayBlock(text, repo, items),
      },
      trace: traceOf(items, scored, repo, stage1, routing),
      diagnostics: {
        scoring_components: scoring,
        candidate_count: scored.length,
        delivery: 'all',
        max_items: input.max_items,
        max_chars: input.max_chars,
        stage1_jobs: stage1Jobs(state.stage1),
        exhausted_paths: [...EXHAUSTED_PATHS],
      },
    },
    TURN_FLOAT_KEYS,
  );
}

/** The brief's numbers the engine writes as floats : item scores and their components. */
const TURN_FLOAT_KEYS: ReadonlySet<string> = new Set([
  'score',
  'continuity',
  'cross_agent',
  'cwd_repo',
  'penalty',
  'prompt',
  'recency',
]);
