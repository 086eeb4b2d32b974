import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { commandText, stderrWidth, wrap, type Verbatim } from '../cli/output.js';
import {
  DEFAULT_SERVER_NAME,
  HOSTS,
  hostSnippet,
  renderSnippet,
  type Host,
  type HostSnippet,
} from '../cli/host-config.js';
import {
  DEFAULT_TOKEN_ENV,
  LAUNCHERS,
  httpTarget,
  stdioTarget,
  type Launcher,
  type ServerTarget,
} from '../cli/host-targets.js';
import { describeHostTools, hostTools, type HostTool } from '../cli/host-tools.js';
import { UsageError } from '../core/errors.js';

/** What `mcp-config` answers: the server entry and each host's snippet for it. */
type McpConfigPayload = {
  name: string;
  transport: ServerTarget['transport'];
  url?: string;
  token_env?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  snippets: HostSnippet[];
  tools: HostTool[];
};

export default class McpConfig extends BaseCommand {
  static override summary = 'Print the config an MCP host needs to use Bourdon.';
  static override description = `Prints exactly what Claude Code, Claude Desktop, Cursor, Codex or VS Code read to start (stdio) or reach (--http) a Bourdon server: JSON for most hosts, TOML for Codex.

With --host, stdout carries the snippet alone (so it can be redirected or piped) and stderr says where it goes, plus a one-line command for hosts that have one (\`claude mcp add\`, \`codex mcp add\`, \`code --add-mcp\`). Without --host, every host is shown.

stdio snippets start the server with absolute paths (this Node and this bourdon), since hosts start servers outside your shell; --command npx gives a portable \`npx -y bourdon@<this version> serve\` instead, pinned so it can only run this release (it needs the package published to the npm registry). BOURDON_HOME, BOURDON_FEDERATION_CONFIG and BOURDON_AUDIT_PATH, when set, are passed on so the host-started server uses the same config as this shell.

HTTP snippets never contain a token: they read it from the variable named by --token-env (default BOURDON_TOKEN), holding a member token from \`bourdon agent add\`.

It ends with what the host will show: each tool under its title, the read-only ones (which hosts that honour readOnlyHint run without asking), the writes they ask you to confirm, and the reads that also ask your peers; --json lists them as \`tools\`.`;
  static override examples = [
    { description: 'Claude Code, stdio, this library', command: '<%= config.bin %> mcp-config --host claude-code' },
    {
      description: 'Write a Cursor project config',
      command: 'mkdir -p .cursor && <%= config.bin %> mcp-config --host cursor > .cursor/mcp.json',
    },
    {
      description: 'A chat app that should only read',
      command: '<%= config.bin %> mcp-config --host claude-desktop --tools read',
    },
    {
      description: 'Codex over HTTP with the token in $BOURDON_TOKEN',
      command:
        '<%= config.bin %> mcp-config --host codex --http https://desk.tailnet.example:7500 >> ~/.codex/config.toml',
    },
    {
      description: 'Every host, as JSON',
      command: '<%= config.bin %> mcp-config --json | jq -r \'.snippets[] | "\\(.title): \\(.file)"\'',
    },
  ];
  static override flags = {
    host: Flags.string({ description: 'The host to configure (default: all).', options: [...HOSTS] }),
    http: Flags.string({
      description: 'Reach a running HTTP server at this URL instead of starting one over stdio.',
      helpValue: '<url>',
    }),
    'token-env': Flags.string({
      description: `With --http: the environment variable holding the bearer token (default ${DEFAULT_TOKEN_ENV}).`,
      helpValue: '<VAR>',
    }),
    name: Flags.string({
      description: 'Server name in the host config.',
      default: DEFAULT_SERVER_NAME,
      helpValue: '<name>',
    }),
    tools: Flags.string({
      description: 'The tools the host gets: read, write (reads + commit) or all. See docs/profiles.md.',
      options: ['read', 'write', 'all'],
    }),
    command: Flags.string({
      description:
        'stdio: how the host starts bourdon: node (absolute paths), npx (npx -y bourdon@<this version>, needs the published package) or bourdon (on PATH).',
      options: [...LAUNCHERS],
      default: 'node',
    }),
  };

  async run(): Promise<McpConfigPayload> {
    const { flags } = await this.parse(McpConfig);
    if (flags['token-env'] && !flags.http) throw new UsageError('--token-env needs --http');
    const target: ServerTarget = flags.http
      ? httpTarget(flags.http, flags['token-env'] ?? DEFAULT_TOKEN_ENV, flags.command as Launcher, flags.tools)
      : stdioTarget(this.libraryRoot(flags.library), flags.command as Launcher, process.env, flags.tools);
    const hosts: Host[] = flags.host ? [flags.host as Host] : [...HOSTS];
    const snippets = hosts.map((host) => hostSnippet(host, target, flags.name));
    const payload: McpConfigPayload = {
      name: flags.name,
      transport: target.transport,
      ...(target.transport === 'http'
        ? { url: target.url, token_env: target.tokenEnv }
        : { command: target.command, args: target.args, env: target.env }),
      snippets,
      tools: hostTools(target),
    };
    if (this.jsonEnabled()) return payload;
    // One host named: its snippet alone.
    const [first] = snippets;
    if (flags.host && first) {
      process.stderr.write(guidance(first, describeHostTools(target)));
      process.stdout.write(first.text + '\n');
      return payload;
    }
    this.say([...renderAll(snippets), '', ...describeHostTools(target)]);
    return payload;
  }
}

/** Where a snippet goes, on stderr when stdout carries the snippet alone. */
function guidance(snippet: HostSnippet, toolLines: string[]): string {
  // Comments wrap at stderr's width, each continued line a comment too. The command is not a
  // comment: it is laid out as commands to copy are (continued with ` \`), so the lines under
  // "# or run:" paste into a shell as the one command.
  const width = stderrWidth();
  const comment = (text: string) => wrap(`# ${text}`, { width, continuation: '#   ' });
  const lines = [comment(`${snippet.title} (${snippet.transport}): ${snippet.file}`)];
  if (snippet.command) {
    lines.push(comment('or run:'));
    lines.push(commandText(snippet.command, '', width));
  }
  for (const note of [...snippet.notes, ...toolLines]) lines.push(comment(note));
  return lines.join('\n') + '\n';
}

function renderAll(snippets: HostSnippet[]): (string | Verbatim)[] {
  return snippets.flatMap((snippet, i) => [...(i ? [''] : []), ...renderSnippet(snippet)]);
}
