import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { configPaths, envValue } from '../core/store/config.js';
import { BourdonError, describeError, UsageError, errnoOf } from '../core/errors.js';
import { LibraryStore, stderrWarn } from '../core/store/library.js';
import { environmentClock } from '../core/store/dates.js';
import {
  DEFAULT_TOOL_PROFILE,
  TOOL_PROFILES,
  parseToolProfile,
  profileFilter,
  type ToolProfile,
} from '../core/trust/profiles.js';
import type { McpPeerFanout } from '../mcp/peer-client.js';
import { listenForShutdown } from '../cli/shutdown.js';

type PeerFanout = McpPeerFanout;

export default class Serve extends BaseCommand {
  static override summary = 'Serve the library to AI agents over MCP.';
  static override description =
    'Runs the Bourdon MCP server: 16 tools (the engine’s 15 and search_memory) and 3 resources. Over stdio (the default) the caller is the operator and stdout carries only MCP; every log goes to stderr. Over HTTP (--transport http) it serves http://<host>:<port>/mcp, stateless, to both MCP protocol eras; callers authenticate with `Authorization: Bearer <token>` (a member token from `bourdon agent add`, or BOURDON_PEER_TOKEN_SERVER for the operator). A library folder that does not exist is refused (a typo would otherwise serve an empty library, and hosts hide stderr from the model): run `bourdon init` first, or pass --create. --tools read|write|all narrows the tools a connection offers (docs/profiles.md). With --url it opens no library: it serves stdio and forwards every request to a running Bourdon HTTP server (a bridge for hosts that only start stdio servers).';
  // Two ways to run, said apart: oclif's generated line nests every flag --url excludes under
  // --token-env (which needs --url), as if --library needed --token-env.
  static override usage = [
    '<%= command.id %> [--library <dir>] [--create] [--transport stdio|http] [--tools read|write|all] [HTTP FLAGS] [PEER FLAGS]',
    '<%= command.id %> --url <url> [--token-env <VAR>] [--tools read|write|all]',
  ];
  static override examples = [
    { description: 'Over stdio, as an MCP host starts it, on the default library', command: '<%= config.bin %> serve' },
    { description: 'On another library', command: '<%= config.bin %> serve --library ~/agent-library' },
    { description: 'Over HTTP on this machine (127.0.0.1:7500)', command: '<%= config.bin %> serve --transport http' },
    {
      description: 'Over HTTP to the tailnet (members need tokens: bourdon agent add)',
      command:
        '<%= config.bin %> serve --transport http --host 0.0.0.0 --port 7500 --allowed-host mybox.tailnet.ts.net',
    },
    { description: 'Offer the read tools only', command: '<%= config.bin %> serve --tools read' },
    {
      description: 'A stdio bridge to a running HTTP server (opens no library; the token in $BOURDON_PEER_DESKTOP)',
      command: '<%= config.bin %> serve --url http://127.0.0.1:7500/mcp --token-env BOURDON_PEER_DESKTOP',
    },
  ];
  static override flags = {
    tools: Flags.string({
      description:
        'Which tools this server offers: read (reads and history), write (reads plus commit_to_federation) or all (also rollback_agent_memory). See docs/profiles.md.',
      options: [...TOOL_PROFILES],
      default: DEFAULT_TOOL_PROFILE,
    }),
    url: Flags.string({
      helpGroup: 'BRIDGE',
      description:
        'Bridge: serve MCP on stdio and forward every request to the running Bourdon HTTP server at this endpoint (https, or http on loopback), which keeps the library. No library is opened here.',
      helpValue: '<url>',
      // The server it forwards to has its own library, peers and transport.
      exclusive: [
        'library',
        'transport',
        'host',
        'port',
        'allow-unauthenticated',
        'allowed-host',
        'allowed-origin',
        'federate',
        'peers-config',
        'peer',
        'no-peers',
        'create',
      ],
    }),
    'token-env': Flags.string({
      helpGroup: 'BRIDGE',
      description:
        'Bridge: the BOURDON_PEER_* variable holding the bearer token for --url (default BOURDON_PEER_TOKEN).',
      helpValue: '<VAR>',
      dependsOn: ['url'],
    }),
    transport: Flags.string({ description: 'stdio or http.', options: ['stdio', 'http'], default: 'stdio' }),
    host: Flags.string({
      helpGroup: 'HTTP',
      description: 'HTTP: interface to bind. A non-loopback bind needs auth configured.',
      default: '127.0.0.1',
      helpValue: '<address>',
    }),
    port: Flags.integer({
      helpGroup: 'HTTP',
      description: 'HTTP: port (0 picks a free one).',
      default: 7500,
      min: 0,
      max: 65535,
    }),
    'allow-unauthenticated': Flags.boolean({
      helpGroup: 'HTTP',
      description: 'HTTP: serve without bearer tokens, every caller being the operator. Loopback binds only.',
      default: false,
    }),
    'allowed-host': Flags.string({
      helpGroup: 'HTTP',
      description: 'HTTP: another Host header value to accept (name or name:port). Repeatable.',
      multiple: true,
      helpValue: '<host>',
    }),
    federate: Flags.boolean({
      helpGroup: 'PEER',
      description: 'Federate with the peers in $BOURDON_HOME/peers.yaml (fails closed if missing or invalid).',
      default: false,
    }),
    'peers-config': Flags.string({
      helpGroup: 'PEER',
      description: 'Federate with the peers in this file only (fails closed).',
      helpValue: '<path>',
    }),
    peer: Flags.string({
      helpGroup: 'PEER',
      description: 'Federate with this peer URL (token from BOURDON_PEER_TOKEN). Repeatable.',
      multiple: true,
      helpValue: '<url>',
    }),
    'no-peers': Flags.boolean({
      helpGroup: 'PEER',
      description: 'Assert local-only: refuse any peer option.',
      default: false,
    }),
    create: Flags.boolean({
      description: 'Create the library folder (with agents/) when it does not exist, instead of refusing.',
      default: false,
    }),
    'allowed-origin': Flags.string({
      helpGroup: 'HTTP',
      description:
        'HTTP: a browser Origin to accept (e.g. https://app.example). Repeatable; any other Origin gets 403.',
      multiple: true,
      helpValue: '<origin>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const profile = parseToolProfile(flags.tools);
    if (flags.url !== undefined) {
      await this.serveBridge(flags.url, flags['token-env'], profile);
      return;
    }
    const toolFilter = profileFilter(profile);
    // SOURCE_DATE_EPOCH freezes the clock the server answers by, as it does an export's.
    const now = environmentClock(process.env);
    const root = this.libraryRoot(flags.library);
    const created = ensureLibrary(root, flags.create);
    // A server learns of changes from the change stamp, the folder and OS events (freshness.ts),
    // not from a stat of every manifest per request.
    const store = new LibraryStore(root, { warn: stderrWarn, freshness: { watch: true } });
    // Live commits do their work on a write thread: reads go on meanwhile (write-thread.ts).
    // BOURDON_WRITE_ON_LOOP=1 keeps it on the event loop, for comparison (bench/overlap.js).
    if (process.env.BOURDON_WRITE_ON_LOOP !== '1') {
      const { writeOffThread } = await import('../core/writes/write-thread.js');
      writeOffThread();
    }
    // Surfaces unreadable manifests on stderr at start, not at the first call.
    const snapshot = store.snapshot();
    if (!created && snapshot.agents.length === 0 && snapshot.broken.length === 0) {
      process.stderr.write(`bourdon: ${root} has no manifests yet (agents/*.l5.yaml): serving an empty library\n`);
    }
    const peers = await this.peers(flags);
    if (flags.transport === 'http') {
      await this.serveHttp(store, flags, peers, toolFilter, profile, now);
      return;
    }
    if (flags.transport !== 'stdio')
      throw new UsageError(`transport ${flags.transport} is not available in this build`);
    const shutdown = listenForShutdown();
    const [{ createMcpServer }, { runStdio }] = await Promise.all([
      import('../mcp/server.js'),
      import('../mcp/stdio.js'),
    ]);
    const handle = runStdio(() => createMcpServer(store, { peers, toolFilter, now }));
    warmSearch(store, toolFilter);
    process.stderr.write(
      `bourdon: serving ${store.paths.root} over stdio (caller: operator; tools: ${profile})${describePeers(peers)}\n`,
    );
    await shutdown.closeWhenRequested(async () => {
      await handle.close();
      await peers?.close();
    });
  }

  /**
   * The stdio bridge: checks the server answers (and accepts the token) before serving, then
   * forwards every request to it until stdin closes or a signal arrives. No library is opened.
   */
  private async serveBridge(rawUrl: string, tokenEnvFlag: string | undefined, profile: ToolProfile): Promise<void> {
    const [{ normalisePeerUrl, checkBridgeTokenEnv, DEFAULT_TOKEN_ENV }, { StdioBridge }, { runStdio }] =
      await Promise.all([
        import('../core/federation/peers-config.js'),
        import('../mcp/bridge.js'),
        import('../mcp/stdio.js'),
      ]);
    const url = normalisePeerUrl(rawUrl);
    const tokenEnv = checkBridgeTokenEnv(
      tokenEnvFlag && tokenEnvFlag.length > 0 ? tokenEnvFlag : DEFAULT_TOKEN_ENV,
      url,
    );
    const token = envValue(process.env, tokenEnv);
    const bridge = new StdioBridge({ url, token, tokenEnv, toolFilter: profileFilter(profile), warn: stderrWarn });
    const shutdown = listenForShutdown();
    const upstream = await bridge.start(); // throws a one-line reason when the server cannot be reached
    const handle = runStdio(() => bridge.createServer());
    const server = [upstream.serverName, upstream.serverVersion].filter(Boolean).join(' ') || 'server';
    process.stderr.write(
      `bourdon: bridging stdio to ${url} (${server}, MCP ${upstream.protocolVersion ?? '?'}; tools: ${profile}, ${upstream.tools} offered; token: ${token ? `from ${tokenEnv}` : `none, ${tokenEnv} is not set`})\n`,
    );
    await shutdown.closeWhenRequested(async () => {
      await handle.close();
      await bridge.close();
    });
  }

  /** The peer fan-out chosen by exactly one opt-in flag, or null (the default: zero peers). */
  private async peers(flags: { federate: boolean; 'peers-config'?: string; peer?: string[]; 'no-peers': boolean }) {
    const { selectPeers } = await import('../core/federation/peers-config.js');
    const configs = selectPeers(
      { federate: flags.federate, peersConfig: flags['peers-config'], peer: flags.peer, noPeers: flags['no-peers'] },
      configPaths(process.env).peers,
    );
    if (configs.length === 0) return null;
    const { McpPeerFanout } = await import('../mcp/peer-client.js');
    const fanout = new McpPeerFanout(configs, process.env);
    fanout.warm();
    return fanout;
  }

  /** HTTP: refuses unsafe binds before listening, then runs until SIGINT/SIGTERM. */
  private async serveHttp(
    store: LibraryStore,
    flags: {
      host: string;
      port: number;
      'allow-unauthenticated': boolean;
      'allowed-host'?: string[];
      'allowed-origin'?: string[];
    },
    peers: PeerFanout | null,
    toolFilter: ((name: string) => boolean) | undefined,
    profile: string,
    now: () => Date,
  ): Promise<void> {
    const shutdown = listenForShutdown({ stdin: false });
    const [{ createMcpServer }, { runHttpServer }, { FederationRegistry }, { UNKNOWN_CALLER }] = await Promise.all([
      import('../mcp/server.js'),
      import('../mcp/http.js'),
      import('../core/trust/registry.js'),
      import('../core/trust/caller.js'),
    ]);
    const registry = new FederationRegistry(configPaths(process.env).registry, { warn: stderrWarn });
    // A request reaching a handler without an identity is an unknown quarantined caller (fail closed).
    const handle = await runHttpServer(
      () => createMcpServer(store, { fallbackCaller: UNKNOWN_CALLER, peers, toolFilter, now }),
      {
        host: flags.host,
        port: flags.port,
        registry,
        env: process.env,
        allowUnauthenticated: flags['allow-unauthenticated'],
        allowedHosts: flags['allowed-host'] ?? [],
        allowedOrigins: flags['allowed-origin'] ?? [],
      },
    );
    warmSearch(store, toolFilter);
    process.stderr.write(
      `bourdon: serving ${store.paths.root} over http: ${handle.describe()}; tools: ${profile}${describePeers(peers)}\n`,
    );
    await shutdown.closeWhenRequested(async () => {
      await handle.close();
      await peers?.close();
    });
  }
}

/**
 * search_memory's index, built in the background as the server starts (the operator's, at the
 * default level; docs/cli.md, "search"). BOURDON_SEARCH_WARM=0 leaves it to the first search.
 */
function warmSearch(store: LibraryStore, toolFilter: ((name: string) => boolean) | undefined): void {
  if (process.env.BOURDON_SEARCH_WARM === '0' || toolFilter?.('search_memory') === false) return;
  import('../core/operations/search-memory.js')
    .then(({ warmSearchMemory }) => warmSearchMemory(store, process.env))
    // Then a few searches, so V8 compiles the search's loops before the first real ones.
    .then(() => import('../core/operations/search-warm.js'))
    .then(({ warmSearchCode }) => warmSearchCode(store, process.env))
    .catch((error: unknown) =>
      process.stderr.write(
        `bourdon: search index left to the first search (${error instanceof Error ? error.message : String(error)})\n`,
      ),
    );
}

function describePeers(peers: PeerFanout | null): string {
  return peers ? `; peers: ${peers.names.join(', ')}` : '; no peers';
}

/**
 * Refuses a missing library unless `create` says to make it (and then says so on stderr);
 * refuses one that cannot be created or read. Returns whether it was created.
 */
export function ensureLibrary(root: string, create: boolean): boolean {
  const full = path.resolve(root);
  try {
    const stat = fs.statSync(full);
    if (!stat.isDirectory()) throw new BourdonError(`library is not a folder: ${full}`, 'invalid_input');
    fs.accessSync(full, fs.constants.R_OK | fs.constants.X_OK);
    return false;
  } catch (error) {
    if (error instanceof BourdonError) throw error;
    const code = errnoOf(error);
    if (code !== 'ENOENT')
      throw new BourdonError(`cannot read library ${full}: ${describeError(error)}`, 'source_unreadable');
    if (!create)
      throw new BourdonError(
        `no library at ${full}: run \`bourdon init\` to set one up, or pass --create to serve a new empty one`,
        'not_found',
      );
    try {
      fs.mkdirSync(path.join(full, 'agents'), { recursive: true });
    } catch (mkdirError) {
      throw new BourdonError(`cannot create library ${full}: ${describeError(mkdirError)}`, 'unavailable');
    }
    process.stderr.write(`bourdon: created an empty library at ${full}\n`);
    return true;
  }
}
