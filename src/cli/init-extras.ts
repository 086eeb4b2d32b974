/**
 * What `bourdon init` offers beyond its plan (issue 53), kept apart from the wizard: the agents'
 * own end-of-turn hooks for the agents it found (Codex's notify, Cursor's stop hook:
 * agent-hooks.ts) and `bourdon watch` as a per-user service. With --yes they follow
 * `--agent-hooks` and `--watch-service`; on a terminal each is one question, asked after the
 * wizard's. `init --remove-hooks` takes every hook of ours out (Claude Code's too).
 */
import { prompting } from './confirm.js';
import { colors } from './output.js';
import { confirmMessage } from './width.js';
import {
  checkAgentHookFiles,
  installCodexHook,
  installCursorHook,
  removeCodexHook,
  removeCursorHook,
  type AgentHookResult,
} from './agent-hooks.js';
import { claudeSettingsPath, removeClaudeHook } from './claude-hook.js';

export type HookAgent = 'codex' | 'cursor';

export interface Extras {
  hooks: HookAgent[];
  service: boolean;
}

/** The agents found that have a hook to offer. */
export function hookAgents(found: readonly string[]): HookAgent[] {
  return (['codex', 'cursor'] as const).filter((agent) => found.includes(agent));
}

export async function askExtras(
  agents: readonly HookAgent[],
  defaults: Extras,
  serviceOffered: boolean,
): Promise<Extras> {
  return prompting('init', async ({ confirm }, context) => {
    const hooks =
      agents.length &&
      (await confirm(
        {
          message: confirmMessage(
            `Refresh the library after each turn of ${agents.join(' and ')} (their own hooks: ${agents.map((a) => (a === 'codex' ? "Codex's notify" : "Cursor's stop hook")).join(', ')})?`,
          ),
          default: defaults.hooks.length > 0 || true,
        },
        context,
      ));
    const service =
      serviceOffered &&
      (await confirm(
        {
          message: confirmMessage('Keep the library current by itself: run `bourdon watch` at login, as a service?'),
          default: defaults.service,
        },
        context,
      ));
    return { hooks: hooks ? [...agents] : [], service: Boolean(service) };
  });
}

/** Throws, changing nothing, when a hook's file could not take it. */
export function checkExtras(extras: Extras): void {
  checkAgentHookFiles(extras.hooks);
}

export function installHooks(extras: Extras, library: string): AgentHookResult[] {
  return extras.hooks.map((agent) => (agent === 'codex' ? installCodexHook(library) : installCursorHook(library)));
}

/** One line per hook: what became of it. */
export function hookLines(results: readonly AgentHookResult[]): string[] {
  const c = colors();
  return results.map((result) => {
    const what = result.agent === 'codex' ? 'Codex notify' : 'Cursor stop hook';
    if (result.status === 'kept')
      return `  ${c.dim('kept   ')}  ${'hook'.padEnd(10)}  ${result.reason} (${result.path})`;
    const state = result.status === 'exists' ? c.dim('exists ') : c.green('added  ');
    const backup = result.backup ? `; its earlier version is ${result.backup}` : '';
    return `  ${state}  ${'hook'.padEnd(10)}  ${what} → bourdon hook ${result.agent} (${result.path}${backup})`;
  });
}

/** `init --remove-hooks`: every hook of ours out of Claude Code's, Codex's and Cursor's files. */
export function removeAllHooks(): { results: { agent: string; path: string; status: string }[]; lines: string[] } {
  const claude = removeClaudeHook(claudeSettingsPath());
  const results = [
    { agent: 'claude-code', path: claude.path, status: claude.status },
    removeCodexHook(),
    removeCursorHook(),
  ];
  const c = colors();
  const lines = results.map((result) =>
    result.status === 'removed'
      ? `${c.green('removed')} the ${result.agent} hook from ${result.path}`
      : `no Bourdon hook for ${result.agent} in ${result.path}`,
  );
  return { results, lines };
}
