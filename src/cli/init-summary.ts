/**
 * What `bourdon init` prints when it is done: each step (created or already there), the new
 * member's token (once), the agents on this machine and what was exported, the host snippets,
 * and what to run next. Its plan is init-plan.ts.
 */
import type { IssuedToken } from '../core/trust/registry.js';
import type { SetupStep } from '../core/admin/setup.js';
import type { HookResult } from './claude-hook.js';
import { renderSnippet, type HostSnippet } from './host-config.js';
import { describeHostTools } from './host-tools.js';
import type { Plan } from './init-plan.js';
import { colors, outputColumns, wrap, type Verbatim } from './output.js';
import { runLine, type ParticipantRun } from './participant-runs.js';
import type { Participant } from '../participants/kit/participant.js';

const WHAT: Record<SetupStep['what'], string> = {
  library: 'library',
  config: 'config dir',
  member: 'member',
  peer: 'peer',
};

export function renderInit(
  steps: SetupStep[],
  issued: IssuedToken | null,
  snippets: HostSnippet[],
  plan: Plan,
  hook: HookResult | null,
  available: readonly Participant[],
  exports: readonly ParticipantRun[],
  already: readonly string[] = [],
): (string | Verbatim)[] {
  const c = colors();
  const status = (step: SetupStep) =>
    step.status === 'exists' ? c.dim(step.status.padEnd(7)) : c.green(step.status.padEnd(7));
  const lines: (string | Verbatim)[] = [c.bold('Bourdon is set up.'), ''];
  for (const step of steps) {
    const detail = step.what === 'library' || step.what === 'config' ? step.path : step.detail;
    lines.push(
      wrap(`  ${status(step)}  ${WHAT[step.what].padEnd(10)}  ${detail}`, { continuation: 2 + 7 + 2 + 10 + 2 }),
    );
  }
  if (hook) {
    const state = hook.status === 'exists' ? c.dim('exists '.padEnd(7)) : c.green('added'.padEnd(7));
    lines.push(
      wrap(`  ${state}  ${'hook'.padEnd(10)}  Claude Code SessionEnd → claude-code export (${hook.path})`, {
        continuation: 2 + 7 + 2 + 10 + 2,
      }),
    );
  }
  if (issued) {
    lines.push(
      '',
      wrap(`Token for ${c.bold(issued.agent_id)}, shown this once (only its SHA-256 is kept) — store it now:`),
      { verbatim: issued.token },
    );
  }
  lines.push('', c.bold('Agents on this machine'));
  const columns = outputColumns();
  const exported = new Set(exports.map((run) => run.agent_id));
  lines.push(...exports.map((run) => `  ${runLine(run, columns === null ? null : columns - 2)}`));
  // What this run did not export: in the library already (set up), or found and not exported yet.
  const held = already.filter((id) => !exported.has(id));
  const waiting = available
    .map((participant) => participant.agentId)
    .filter((id) => !exported.has(id) && !already.includes(id));
  if (held.length)
    lines.push(
      wrap(`  in the library: ${held.join(', ')} ${c.dim('(refresh them: bourdon export-all)')}`, { continuation: 2 }),
    );
  if (waiting.length)
    lines.push(
      wrap(`  found: ${waiting.join(', ')} ${c.dim('(not exported yet: bourdon export-all)')}`, { continuation: 2 }),
    );
  if (!available.length)
    lines.push(wrap(`  ${c.dim("none found (no agent's memory Bourdon can read is on this machine)")}`));
  for (const snippet of snippets) lines.push('', ...renderSnippet(snippet));
  // The server init configures offers every tool over stdio.
  if (snippets.length) lines.push('', ...describeHostTools({ transport: 'stdio' }).map((line) => c.dim(line)));
  lines.push('', c.bold('Next'));
  const next: [string, string][] = [
    [
      'bourdon export-all',
      exports.length
        ? "refresh the library from the agents' own memory (after sessions)"
        : "fill the library from the agents' own memory on this machine",
    ],
    ['bourdon doctor', 'check the library, members, staging, peers and audit log'],
    ['bourdon demo', 'see federation work on a built-in sample library'],
    ['bourdon mcp-config --host <host>', 'the config for Claude Code, Claude Desktop, Cursor, Codex or VS Code'],
  ];
  if (plan.member) next.push(['bourdon serve --transport http', 'serve members over HTTP (see `bourdon help agent`)']);
  if (plan.peer) next.push(['bourdon peers check', 'is the peer reachable?']);
  const width = Math.max(...next.map(([command]) => command.length));
  for (const [command, why] of next)
    lines.push(wrap(`  ${command.padEnd(width)}  ${c.dim(why)}`, { continuation: 2 + width + 2 }));
  return lines;
}
