import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { assertCanAsk, prompting, yesFlag } from '../cli/confirm.js';
import { HOSTS, hostSnippet, type Host } from '../cli/host-config.js';
import { stdioTarget } from '../cli/host-targets.js';
import { colors } from '../cli/output.js';
import { confirmMessage, promptMessage, stderrLine } from '../cli/width.js';
import {
  checkClaudeSettings,
  claudeSettingsPath,
  hookCommand,
  installClaudeHook,
  removeClaudeHook,
} from '../cli/claude-hook.js';
import {
  availableParticipants,
  existingSetup,
  grantsProblem,
  inLibrary,
  planFromFlags,
  splitList,
  tokenEnvProblem,
  urlProblem,
  type InitFlags,
  type Plan,
} from '../cli/init-plan.js';
import { renderInit } from '../cli/init-summary.js';
import { askExtras, checkExtras, hookAgents, hookLines, installHooks, removeAllHooks } from '../cli/init-extras.js';
import { configPaths } from '../core/store/config.js';
import { printRunWarnings, runParticipants } from '../cli/participant-runs.js';
import type { Participant } from '../participants/kit/participant.js';
import { exportEnvironment } from '../participants/runner.js';
import { invalidAgentIdMessage, isValidAgentId } from '../core/store/ids.js';
import { DEFAULT_TOKEN_ENV, normalisePeerUrl, peerNameFromUrl } from '../core/federation/peers-config.js';
import type { IssuedToken } from '../core/trust/registry.js';
import {
  ensureConfigDir,
  ensureLibraryFolders,
  ensureMember,
  ensurePeer,
  type MemberRequest,
  type PeerRequest,
  type SetupStep,
} from '../core/admin/setup.js';

/** Rows the export checkbox shows at once; with more agents its message says it scrolls. */
const CHECKBOX_ROWS = 7;

export default class Init extends BaseCommand {
  static override summary = 'Set up the library and config dir, a first member and peer.';
  static override description = `An interactive wizard on a terminal: it asks where the library goes, whether to register a first member (a caller over HTTP, with a token shown once) and a first peer (another machine's Bourdon server), and which MCP host to print the config for. It then creates the library (with agents/) and the config dir (~/.bourdon, or BOURDON_HOME, mode 700), registers and adds what you asked for, and prints the host snippet.

With --yes it asks nothing and does what the flags say, for scripts. Outside a terminal --yes is required.

It also offers (--claude-hook with --yes) to add a SessionEnd hook to Claude Code's ~/.claude/settings.json that runs \`bourdon claude-code export\` after every Claude Code session, so the library stays fresh; everything else in that file is kept. \`bourdon init --remove-claude-hook\` takes it out again.

It looks for the memory of every agent Bourdon can read (Claude Code, Codex, Cursor, …: the participants, as \`bourdon doctor\` lists them) and offers to export the ones on this machine into the library at once (--export with --yes), as \`bourdon export-all\` does; the summary names what it found either way.

Running it again is safe: what exists is reported and left alone; an existing member's token is never shown again.`;
  static override examples = [
    { description: 'The wizard', command: '<%= config.bin %> init' },
    {
      description: 'A script: library and config dir only',
      command: '<%= config.bin %> init --yes --library ~/agent-library',
    },
    {
      description: 'A trusted member for this laptop, a peer, and the Claude Code snippet',
      command:
        '<%= config.bin %> init --yes --member laptop --tier trusted --peer-url https://desk.tailnet.example:7500 --peer-token-env BOURDON_PEER_DESK --host claude-code',
    },
    {
      description: 'A script that also fills the library from the agents found on this machine',
      command: '<%= config.bin %> init --yes --export',
    },
    {
      description: 'Capture the new member token in a script',
      command: '<%= config.bin %> init --yes --member ci --grant codex --json | jq -r .member.token',
    },
  ];
  static override flags = {
    yes: yesFlag('Ask nothing: use the flags and defaults.'),
    member: Flags.string({ description: 'Register this member (an agent id) for HTTP access.', helpValue: '<id>' }),
    tier: Flags.string({
      description: "The member's tier.",
      options: ['quarantined', 'trusted'],
      default: 'quarantined',
    }),
    grant: Flags.string({
      description: 'A namespace the member may read (repeatable or comma-separated).',
      multiple: true,
      delimiter: ',',
      helpValue: '<ns>',
    }),
    'peer-url': Flags.string({ description: "Add a peer: another machine's Bourdon server.", helpValue: '<url>' }),
    'peer-name': Flags.string({
      description: 'The peer’s name (default: from its host and port).',
      helpValue: '<name>',
    }),
    'peer-token-env': Flags.string({
      description: 'BOURDON_PEER_* variable holding the peer’s token.',
      default: DEFAULT_TOKEN_ENV,
      helpValue: '<VAR>',
    }),
    host: Flags.string({
      description: 'Print the stdio config for this MCP host (repeatable).',
      options: [...HOSTS],
      multiple: true,
    }),
    'claude-hook': Flags.boolean({
      description: "Add the SessionEnd hook to Claude Code's settings that runs `bourdon claude-code export`.",
      default: false,
    }),
    export: Flags.boolean({
      description: 'With --yes: also export every agent whose memory is on this machine into the library.',
      default: false,
    }),
    'agent-hooks': Flags.boolean({
      description:
        "With --yes: add the end-of-turn hooks of the agents found (Codex's notify, Cursor's stop hook) that refresh their manifests.",
      default: false,
    }),
    'watch-service': Flags.boolean({
      description:
        'With --yes: install `bourdon watch` as a per-user service that starts at login (`bourdon watch --install`).',
      default: false,
    }),
    'remove-hooks': Flags.boolean({
      description:
        "Only remove every Bourdon hook (Claude Code's, Codex's, Cursor's; everything else stays), then stop.",
      default: false,
      exclusive: ['claude-hook', 'agent-hooks'],
    }),
    'remove-claude-hook': Flags.boolean({
      description: "Only remove that hook from Claude Code's settings (everything else stays), then stop.",
      default: false,
      exclusive: ['claude-hook'],
    }),
  };

  async run() {
    const { flags } = await this.parse(Init);
    if (flags['remove-claude-hook']) {
      const result = removeClaudeHook(claudeSettingsPath());
      return this.emit({ claude_hook: result }, () =>
        result.status === 'removed'
          ? `${colors().green('removed')} the SessionEnd hook from ${result.path}`
          : `no Bourdon hook in ${result.path}; nothing changed`,
      );
    }
    if (flags['remove-hooks']) {
      const removed = removeAllHooks();
      return this.emit({ hooks: removed.results }, () => removed.lines.join('\n'));
    }
    const environment = exportEnvironment(process.env);
    const available = await availableParticipants(environment);
    const plan = flags.yes
      ? planFromFlags(this.libraryRoot(flags.library), flags, available)
      : await this.ask(this.libraryRoot(flags.library), flags, available);
    // Read before the exports run: what was in the library before this init.
    const already = inLibrary(plan.library, available);
    // A settings file the hook cannot go into stops init before anything is created.
    if (plan.claudeHook) checkClaudeSettings(claudeSettingsPath());
    const { watchService } = await import('../core/store/watch-status.js');
    const offered = hookAgents(available.map((participant) => participant.agentId));
    const extras = flags.yes
      ? { hooks: flags['agent-hooks'] ? offered : [], service: flags['watch-service'] }
      : await askExtras(offered, { hooks: offered, service: false }, watchService(process.env) !== null);
    checkExtras(extras);
    const config = configPaths(process.env);
    const libraryStep = ensureLibraryFolders(plan.library);
    const configStep = ensureConfigDir(config.home);
    const steps: SetupStep[] = [libraryStep, configStep];
    let issued: IssuedToken | null = null;
    if (plan.member) {
      const result = ensureMember(config.registry, plan.member);
      steps.push(result.step);
      issued = result.issued;
    }
    let peer = null;
    if (plan.peer) {
      const result = ensurePeer(config.peers, plan.peer);
      steps.push(result.step);
      peer = result.peer;
    }
    const target = stdioTarget(plan.library);
    const snippets = plan.hosts.map((host) => hostSnippet(host, target));
    const hook = plan.claudeHook ? installClaudeHook(claudeSettingsPath(), hookCommand(plan.library)) : null;
    const agentHooks = installHooks(extras, plan.library);
    const service = extras.service ? await this.installWatchService(plan.library) : null;
    const exports = await runParticipants(
      available.filter((participant) => plan.exports.includes(participant.agentId)),
      environment,
      {
        accessLevel: 'team',
        dryRun: false,
        library: () => this.libraryForExport(plan.library),
        auditPath: config.audit,
      },
    );
    if (!this.jsonEnabled()) for (const run of exports) printRunWarnings(run);
    const payload = {
      library: libraryStep.path,
      config_dir: configStep.path,
      steps,
      member: issued
        ? { agent_id: issued.agent_id, tier: issued.tier, grants: issued.grants, token: issued.token }
        : null,
      peer,
      snippets,
      claude_hook: hook,
      agent_hooks: agentHooks,
      watch_service: service,
      agents_found: available.map((participant) => participant.agentId),
      agents_in_library: already,
      exports,
    };
    return this.emit(payload, () => [
      ...renderInit(steps, issued, snippets, plan, hook, available, exports, already),
      ...hookLines(agentHooks),
      ...(service
        ? [
            `  ${service.outcome === 'replaced' ? 'replaced' : 'added  '}  ${'service'.padEnd(10)}  bourdon watch at login (${service.file}; log ${service.log})${service.manual ? `; start it now: ${service.manual.command}` : ''}`,
          ]
        : []),
    ]);
  }

  /** `bourdon watch --install` for the library init set up (src/watch/service.ts). */
  private async installWatchService(library: string) {
    const { installService } = await import('../watch/service.js');
    const { packageRoot } = await import('../core/admin/package-root.js');
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    if (process.env.BOURDON_HOME) env.BOURDON_HOME = process.env.BOURDON_HOME;
    return installService(
      { node: process.execPath, cli: path.join(packageRoot(), 'bin', 'run.js'), library: path.resolve(library), env },
      process.env,
    );
  }

  /** The wizard: prompts on stderr (stdout keeps the summary), flags as the defaults. */
  private async ask(library: string, flags: InitFlags, available: readonly Participant[]): Promise<Plan> {
    assertCanAsk('use the flags and defaults', 'with --member, --peer-url, --host as needed');
    const c = colors();
    return prompting('init', async ({ input, confirm, select, checkbox }, context) => {
      process.stderr.write(
        stderrLine(
          `${c.bold('Bourdon setup')} ${c.dim('— Enter accepts the default; Ctrl-C stops without changing anything.')}`,
        ),
      );
      const root = await input(
        {
          message: promptMessage('Library folder', ` (${library})`),
          default: library,
          validate: (value) => (value.trim() ? true : 'a folder is needed'),
        },
        context,
      );

      const config = configPaths(process.env);
      const existing = existingSetup(config.registry, config.peers);
      const say = (line: string) => process.stderr.write(stderrLine(line));
      if (existing.members.length)
        say(
          `${c.dim('Already registered:')} ${existing.members.map((row) => `${row.id} (${row.tier})`).join(', ')} ${c.dim('(bourdon agent list)')}`,
        );
      let member: MemberRequest | null = null;
      if (
        await confirm(
          {
            message: confirmMessage(
              existing.members.length
                ? 'Register another member who may call this server over HTTP?'
                : 'Register a member who may call this server over HTTP?',
            ),
            default: Boolean(flags.member),
          },
          context,
        )
      ) {
        const id = await input(
          {
            message: 'Member id',
            default: flags.member,
            validate: (value) => (isValidAgentId(value.trim()) ? true : invalidAgentIdMessage(value.trim(), 'id')),
          },
          context,
        );
        const tier = await select(
          {
            message: 'Tier',
            default: flags.tier,
            choices: [
              {
                name: 'quarantined',
                value: 'quarantined' as const,
                description: 'reads only granted namespaces; its writes wait in staging',
              },
              {
                name: 'trusted',
                value: 'trusted' as const,
                description: 'every tool, every namespace (no private rows when remote)',
              },
            ],
          },
          context,
        );
        let grants: string[] = [];
        if (tier === 'quarantined') {
          const answer = await input(
            {
              message: promptMessage(
                'Namespaces it may read (agent ids, comma-separated; empty for none)',
                flags.grant?.length ? ` (${flags.grant.join(',')})` : '',
              ),
              default: (flags.grant ?? []).join(','),
              validate: grantsProblem,
            },
            context,
          );
          grants = splitList(answer);
        }
        member = { id: id.trim(), tier, grants };
      }

      if (existing.peers.length)
        say(`${c.dim('Peers already added:')} ${existing.peers.join(', ')} ${c.dim('(bourdon peers list)')}`);
      let peer: PeerRequest | null = null;
      if (
        await confirm(
          {
            message: confirmMessage(
              existing.peers.length
                ? "Add another peer (another machine's Bourdon server)?"
                : "Add a peer (another machine's Bourdon server)?",
            ),
            default: Boolean(flags['peer-url']),
          },
          context,
        )
      ) {
        const url = await input({ message: 'Peer URL', default: flags['peer-url'], validate: urlProblem }, context);
        const name = await input(
          {
            message: 'Peer name',
            default: flags['peer-name'] ?? peerNameFromUrl(normalisePeerUrl(url.trim())),
            validate: (value) => (isValidAgentId(value.trim()) ? true : 'use lowercase letters, digits, - and _'),
          },
          context,
        );
        const tokenEnv = await input(
          {
            message: promptMessage('Variable holding its token (BOURDON_PEER_*)', ` (${flags['peer-token-env']})`),
            default: flags['peer-token-env'],
            validate: tokenEnvProblem,
          },
          context,
        );
        peer = { name: name.trim(), url: url.trim(), token_env: tokenEnv.trim() };
      }

      const host = await select(
        {
          message: 'Print the MCP config for',
          default: flags.host?.[0] ?? 'claude-code',
          choices: [
            ...HOSTS.map((value) => ({ name: value, value: value as string })),
            { name: 'none (later: bourdon mcp-config)', value: 'none' },
          ],
        },
        context,
      );
      const claudeHook = await confirm(
        {
          message: confirmMessage(
            `Refresh the library after every Claude Code session (a SessionEnd hook in ${claudeSettingsPath()})?`,
          ),
          default: flags['claude-hook'] || fs.existsSync(path.dirname(claudeSettingsPath())),
        },
        context,
      );
      // Offered: the agents found that the library does not hold yet; those it holds are named.
      const held = inLibrary(root.trim(), available);
      const offered = available.filter((participant) => !held.includes(participant.agentId));
      if (held.length)
        say(`${c.dim('In the library already:')} ${held.join(', ')} ${c.dim('(refresh them: bourdon export-all)')}`);
      const exports = offered.length
        ? await checkbox(
            {
              message: promptMessage(
                `Export the memory of these agents, found on this machine, into the library now?${offered.length > CHECKBOX_ROWS ? ` (${offered.length} agents, ${CHECKBOX_ROWS} shown: ↑↓ scrolls)` : ''}`,
              ),
              pageSize: CHECKBOX_ROWS,
              choices: offered.map((participant) => ({
                name: participant.agentId,
                value: participant.agentId,
                checked: true,
              })),
            },
            context,
          )
        : [];
      return {
        library: root.trim(),
        member,
        peer,
        hosts: host === 'none' ? [] : [host as Host],
        claudeHook,
        exports,
      };
    });
  }
}
