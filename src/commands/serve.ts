import fs from 'node:fs';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { BourdonError, UsageError } from '../core/errors.js';
import { L6Store, stderrWarn } from '../core/library.js';

export default class Serve extends BaseCommand {
  static override summary = 'Serve the library to AI agents over MCP.';
  static override description =
    'Runs the Bourdon MCP server: 15 tools and 3 resources. Over stdio (the default) the caller is the operator and stdout carries only MCP; every log goes to stderr. A library folder that does not exist yet is created.';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --library ~/agent-library',
  ];
  static override flags = {
    transport: Flags.string({ description: 'stdio or http.', options: ['stdio', 'http'], default: 'stdio' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const root = this.libraryRoot(flags.library);
    ensureLibrary(root);
    const store = new L6Store(root, { warn: stderrWarn });
    store.snapshot(); // surface unreadable manifests on stderr at start, not at the first call
    if (flags.transport !== 'stdio') throw new UsageError(`transport ${flags.transport} is not available in this build`);
    const [{ createL6Server }, { runStdio }] = await Promise.all([import('../mcp/server.js'), import('../mcp/stdio.js')]);
    const handle = runStdio(() => createL6Server(store));
    process.stderr.write(`bourdon: serving ${store.paths.root} over stdio (caller: operator)\n`);
    await waitForShutdown(() => handle.close());
  }
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

/** Resolves when stdin closes or a termination signal arrives, after closing the server. */
export function waitForShutdown(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const stop = () => {
      if (done) return;
      done = true;
      close().finally(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
  });
}
