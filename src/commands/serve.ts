import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { configPaths } from '../core/config.js';
import { BourdonError, UsageError } from '../core/errors.js';
import { L6Store, stderrWarn } from '../core/library.js';
import type { McpPeerFanout } from '../mcp/peer-client.js';

type PeerFanout = McpPeerFanout;

export default class Serve extends BaseCommand {
  static override summary = 'Serve the library to AI agents over MCP.';
  static override description =
    'Runs the Bourdon MCP server: 15 tools and 3 resources. Over stdio (the default) the caller is the operator and stdout carries only MCP; every log goes to stderr. Over HTTP (--transport http) it serves http://<host>:<port>/mcp, stateless, to both MCP protocol eras; callers authenticate with `Authorization: Bearer <token>` (a member token from `bourdon agent add`, or BOURDON_PEER_TOKEN_SERVER for the operator). A library folder that does not exist yet is created.';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --library ~/agent-library',
    '<%= config.bin %> serve --transport http',
    '<%= config.bin %> serve --transport http --host 0.0.0.0 --port 7500 --allowed-host mybox.tailnet.ts.net',
  ];
  static override flags = {
    transport: Flags.string({ description: 'stdio or http.', options: ['stdio', 'http'], default: 'stdio' }),
    host: Flags.string({
      description: 'HTTP: interface to bind. A non-loopback bind needs auth configured.',
      default: '127.0.0.1',
      helpValue: '<address>',
    }),
    port: Flags.integer({ description: 'HTTP: port (0 picks a free one).', default: 7500, min: 0, max: 65535 }),
    'allow-unauthenticated': Flags.boolean({
      description: 'HTTP: serve without bearer tokens, every caller being the operator. Loopback binds only.',
      default: false,
    }),
    'allowed-host': Flags.string({
      description: 'HTTP: another Host header value to accept (name or name:port). Repeatable.',
      multiple: true,
      helpValue: '<host>',
    }),
    federate: Flags.boolean({ description: 'Federate with the peers in $BOURDON_HOME/peers.yaml (fails closed if missing or invalid).', default: false }),
    'peers-config': Flags.string({ description: 'Federate with the peers in this file only (fails closed).', helpValue: '<path>' }),
    peer: Flags.string({ description: 'Federate with this peer URL (token from BOURDON_PEER_TOKEN). Repeatable.', multiple: true, helpValue: '<url>' }),
    'no-peers': Flags.boolean({ description: 'Assert local-only: refuse any peer option.', default: false }),
    'allowed-origin': Flags.string({
      description: 'HTTP: a browser Origin to accept (e.g. https://app.example). Repeatable; any other Origin gets 403.',
      multiple: true,
      helpValue: '<origin>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const root = this.libraryRoot(flags.library);
    ensureLibrary(root);
    const store = new L6Store(root, { warn: stderrWarn });
    store.snapshot(); // surface unreadable manifests on stderr at start, not at the first call
    const peers = await this.peers(flags);
    if (flags.transport === 'http') {
      await this.serveHttp(store, flags, peers);
      return;
    }
    if (flags.transport !== 'stdio') throw new UsageError(`transport ${flags.transport} is not available in this build`);
    const [{ createL6Server }, { runStdio }] = await Promise.all([import('../mcp/server.js'), import('../mcp/stdio.js')]);
    const handle = runStdio(() => createL6Server(store, { peers }));
    process.stderr.write(`bourdon: serving ${store.paths.root} over stdio (caller: operator)${describePeers(peers)}\n`);
    await waitForShutdown(async () => {
      await handle.close();
      await peers?.close();
    });
  }

  /** The peer fan-out chosen by exactly one opt-in flag, or null (the default: zero peers). */
  private async peers(flags: { federate: boolean; 'peers-config'?: string; peer?: string[]; 'no-peers': boolean }) {
    const { selectPeers } = await import('../core/peers-config.js');
    const configs = selectPeers(
      { federate: flags.federate, peersConfig: flags['peers-config'], peer: flags.peer, noPeers: flags['no-peers'] },
      configPaths(process.env).peers,
    );
    if (configs.length === 0) return null;
    const { McpPeerFanout } = await import('../mcp/peer-client.js');
    return new McpPeerFanout(configs, process.env);
  }

  /** HTTP: refuses unsafe binds before listening, then runs until SIGINT/SIGTERM. */
  private async serveHttp(
    store: L6Store,
    flags: { host: string; port: number; 'allow-unauthenticated': boolean; 'allowed-host'?: string[]; 'allowed-origin'?: string[] },
    peers: PeerFanout | null,
  ): Promise<void> {
    const [{ createL6Server }, { runHttpServer }, { FederationRegistry }, { UNKNOWN_CALLER }] = await Promise.all([
      import('../mcp/server.js'),
      import('../mcp/http.js'),
      import('../core/registry.js'),
      import('../core/caller.js'),
    ]);
    const registry = new FederationRegistry(configPaths(process.env).registry, { warn: stderrWarn });
    // A request reaching a handler without an identity is an unknown quarantined caller (fail closed).
    const handle = await runHttpServer(() => createL6Server(store, { fallbackCaller: UNKNOWN_CALLER, peers }), {
      host: flags.host,
      port: flags.port,
      registry,
      env: process.env,
      allowUnauthenticated: flags['allow-unauthenticated'],
      allowedHosts: flags['allowed-host'] ?? [],
      allowedOrigins: flags['allowed-origin'] ?? [],
    });
    process.stderr.write(`bourdon: serving ${store.paths.root} over http: ${handle.describe()}${describePeers(peers)}\n`);
    await waitForShutdown(
      async () => {
        await handle.close();
        await peers?.close();
      },
      { stdin: false },
    );
  }
}

function describePeers(peers: PeerFanout | null): string {
  return peers ? `; peers: ${peers.names.join(', ')}` : '; no peers';
}

/** Creates a missing library (and says so); refuses one that cannot be created or read. */
export function ensureLibrary(root: string): void {
  try {
    const stat = fs.statSync(root);
    if (!stat.isDirectory()) throw new BourdonError(`library is not a folder: ${root}`);
    fs.accessSync(root, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    if (error instanceof BourdonError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new BourdonError(`cannot read library ${root}: ${code ?? 'error'}`);
    try {
      fs.mkdirSync(`${root}/agents`, { recursive: true });
    } catch (mkdirError) {
      throw new BourdonError(`cannot create library ${root}: ${(mkdirError as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    process.stderr.write(`bourdon: created an empty library at ${root}\n`);
  }
}

/**
 * Resolves when a termination signal arrives (or, for stdio, stdin closes), after closing the
 * server. An HTTP server does not watch stdin: it may run with stdin closed or detached.
 */
export function waitForShutdown(close: () => Promise<void>, options: { stdin?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const stop = () => {
      if (done) return;
      done = true;
      close().finally(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (options.stdin === false) return;
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
  });
}
