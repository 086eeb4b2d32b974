/**
 * The four automation participants, as data: where each finds its automations, what it does
 * when they are missing, its texts, tags, hints and signals, and its command's help. Everything
 * else is the one implementation in index.ts (conformance/participants/README.md, sections
 * claude_code_automations, codex_automations, cursor_automations, copilot_automations).
 */
import path from 'node:path';
import type { ExportEnvironment, ParticipantHelp } from '../kit/participant.js';
import type { Signal } from './runs.js';
import { PROJECT_HINTS } from '../kit/project-hints.js';

/** How runs become sessions and entities. */
export type AutomationStyle =
  /** claude-code, codex, cursor: scheduled (`rrule`, `cwds`); run markers dropped; projects and signals inferred; `...`. */
  | 'scheduled'
  /** copilot: event-triggered (`trigger`, `kind`, `repos`); run lines kept verbatim; repositories as projects; `…`. */
  | 'triggered';

export interface AutomationVariant {
  readonly agentId: string;
  /** How its texts name the agent (`Claude Code automation '…'`). */
  readonly label: string;
  /** Its first tag on every entity, and the start of its team tags (`claude-code-automation`). */
  readonly tag: string;
  readonly style: AutomationStyle;
  /** The automations folder this environment names. */
  directory(environment: ExportEnvironment): string;
  /** What a missing folder gives: no manifest, or one with empty lists. */
  readonly whenMissing: 'no-manifest' | 'empty-manifest';
  readonly specVersionCompat: string;
  readonly roleNarrative: string;
  readonly capabilities: readonly string[];
  readonly teamTags: readonly string[];
  /** Project names looked for in run text, in order (scheduled style). */
  readonly hints: readonly string[];
  /** Signal classes looked for in run text, in order (scheduled style). */
  readonly signals: readonly Signal[];
  readonly help: ParticipantHelp;
}

/** The engine's project hints (project-hints.ts), shared with the Claude desktop surfaces. */
const HINTS: readonly string[] = PROJECT_HINTS;

const SIGNALS: readonly Signal[] = [
  { name: 'human-dashboard-action', words: ['human', 'ryan', 'dashboard', 'manual'] },
  { name: 'release-gate', words: ['release', 'store', 'app review', 'play console', 'testflight'] },
  { name: 'billing-drift', words: ['billing', 'stripe', 'revenuecat', 'iap', 'subscription'] },
  { name: 'memory-coverage-gap', words: ['memory', 'l5', 'manifest', 'federated', 'bourdon'] },
  { name: 'launch-decision', words: ['launch', 'go-live', 'pricing', 'prod', 'production'] },
];
const CI_SIGNAL: Signal = { name: 'ci-signal', words: ['github action', 'workflow run', 'ci failure', 'gh action'] };
const CURSOR_CI_SIGNAL: Signal = {
  name: 'ci-signal',
  words: ['github action', 'workflow run', 'ci', 'cd', 'deploy', 'pipeline'],
};

/** `$VARIABLE/automations` for the first variable set (an empty one counts as unset), else the default. */
function underVariable(environment: ExportEnvironment, variables: readonly string[], fallback: string[]): string {
  for (const name of variables) {
    const value = environment.env[name];
    if (value) return path.resolve(environment.cwd, value, 'automations');
  }
  return path.join(environment.home, ...fallback);
}

const PRIVATE_DROP =
  'Automations whose status is a private tag (family, financial, …) are left out; their runs are kept.';

function scheduledHelp(agentId: string, label: string, sources: string): ParticipantHelp {
  return {
    summary: `Publish ${label} automation runs as the ${agentId} manifest.`,
    reads:
      `Reads ${sources} read-only: each <automation>/automation.toml (id, name, status, rrule, cwds) and its memory.md, ` +
      `whose dated run headers (2026-04-28 -- nightly run) become sessions (actions scrubbed, at most six a run) and whose text ` +
      `names projects and signal classes (release-gate, billing-drift, …), which become entities. ${PRIVATE_DROP}`,
  };
}

export const CLAUDE_CODE_AUTOMATIONS: AutomationVariant = {
  agentId: 'claude-code-automations',
  label: 'Claude Code',
  tag: 'claude-code-automation',
  style: 'scheduled',
  directory: (environment) => underVariable(environment, ['CLAUDE_HOME'], ['.claude', 'automations']),
  whenMissing: 'no-manifest',
  specVersionCompat: '0.1',
  roleNarrative:
    'Claude Code run unattended: /loop continuations, scheduled jobs, claude-code-action runs in GitHub Actions ' +
    'and remote routines. Bourdon publishes what each automation records about its runs, read-only, so they show ' +
    'beside the interactive Claude Code sessions.',
  capabilities: ['claude-code-automation-memory', 'run-summary-publication'],
  teamTags: ['claude-code-automation', 'automation', 'workspace'],
  hints: HINTS,
  signals: [...SIGNALS, CI_SIGNAL],
  help: scheduledHelp(
    'claude-code-automations',
    'Claude Code',
    '$CLAUDE_HOME/automations (else ~/.claude/automations; without that folder nothing is written)',
  ),
};

export const CODEX_AUTOMATIONS: AutomationVariant = {
  agentId: 'codex-automations',
  label: 'Codex',
  tag: 'codex-automation',
  style: 'scheduled',
  // CODEX_HOME is used as given, even when it holds no automations/ (the codex participant falls back instead).
  directory: (environment) => underVariable(environment, ['CODEX_HOME'], ['.codex', 'automations']),
  whenMissing: 'empty-manifest',
  specVersionCompat: '0.1',
  roleNarrative:
    "Codex's automations: background monitors, digests and recurring checks. Bourdon publishes what each one " +
    'records about its runs, read-only, so they show beside the interactive agent sessions.',
  capabilities: ['codex-automation-memory', 'run-summary-publication'],
  teamTags: ['codex-automation', 'automation', 'workspace'],
  hints: HINTS.slice(0, HINTS.indexOf('Copilot') + 1),
  signals: SIGNALS,
  help: scheduledHelp(
    'codex-automations',
    'Codex',
    '$CODEX_HOME/automations (else ~/.codex/automations; without it the manifest is empty)',
  ),
};

export const CURSOR_AUTOMATIONS: AutomationVariant = {
  agentId: 'cursor-automations',
  label: 'Cursor',
  tag: 'cursor-automation',
  style: 'scheduled',
  // Here CURSOR_DIR is the parent of automations/ (the cursor participant reads it as Cursor's data folder).
  directory: (environment) => underVariable(environment, ['CURSOR_DIR', 'CURSOR_HOME'], ['.cursor', 'automations']),
  whenMissing: 'empty-manifest',
  specVersionCompat: '0.1',
  roleNarrative:
    "Cursor's background agents: PR reviews, code generation tasks and scheduled runs. Bourdon publishes what " +
    'each automation records about its runs, read-only, so they show beside the interactive Cursor sessions.',
  capabilities: ['cursor-automation-memory', 'run-summary-publication'],
  teamTags: ['cursor-automation', 'automation', 'workspace'],
  hints: HINTS,
  signals: [...SIGNALS, CURSOR_CI_SIGNAL],
  help: scheduledHelp(
    'cursor-automations',
    'Cursor',
    '$CURSOR_DIR/automations, else $CURSOR_HOME/automations, else ~/.cursor/automations (without it the manifest is empty)',
  ),
};

export const COPILOT_AUTOMATIONS: AutomationVariant = {
  agentId: 'copilot-automations',
  label: 'Copilot',
  tag: 'copilot-automation',
  style: 'triggered',
  // The automations folder itself; COPILOT_BOURDON_HOME is not consulted.
  directory: (environment) => {
    const named = environment.env.COPILOT_AUTOMATIONS_HOME;
    return named
      ? path.resolve(environment.cwd, named)
      : path.join(environment.home, '.copilot-bourdon', 'automations');
  },
  whenMissing: 'empty-manifest',
  specVersionCompat: '>=0.1',
  roleNarrative:
    'Copilot run by events: GitHub Actions-triggered tasks, scheduled PR reviews, issue triage. Bourdon ' +
    'publishes what each automation records about its runs, read-only, so they show beside the interactive sessions.',
  capabilities: ['copilot-automation-memory', 'run-summary-publication'],
  teamTags: ['copilot-automation', 'automation', 'github-actions', 'workspace'],
  hints: [],
  signals: [],
  help: {
    summary: 'Publish Copilot automation runs as the copilot-automations manifest.',
    reads:
      'Reads $COPILOT_AUTOMATIONS_HOME (the automations folder itself; else ~/.copilot-bourdon/automations; without it ' +
      'the manifest is empty) read-only: each <automation>/automation.toml (id, name, status, trigger, kind, repos) and ' +
      'its memory.md, whose dated run headers become sessions (actions scrubbed, at most six a run); the repositories ' +
      `of automations with runs become project entities. ~/.copilot-bourdon/memory.md is not read. ${PRIVATE_DROP}`,
  },
};
