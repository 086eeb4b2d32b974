import { spawn } from 'node:child_process';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { configPaths } from '../core/store/config.js';
import { listenForShutdown } from '../cli/shutdown.js';

export default class Ui extends BaseCommand {
  static override summary = 'A local page to see the library and review what agents wrote.';
  static override description =
    'Serves a page on 127.0.0.1 only: agents and their health, an activity timeline, workstreams, staged writes (promote or reject), the history of each agent (what each version changed; roll back) and the audit log. It prints a link with a one-time token; open it in a browser on this machine. Writes go through the same operations as `bourdon staging promote|reject` and `bourdon rollback`, as the operator. Ctrl-C stops it. See docs/ui.md.';
  static override examples = [
    '<%= config.bin %> ui',
    '<%= config.bin %> ui --port 7600 --open',
    '<%= config.bin %> ui --library ~/agent-library',
  ];
  static override flags = {
    port: Flags.integer({ description: 'Port on 127.0.0.1 (default: any free port).', min: 0, max: 65535, default: 0 }),
    open: Flags.boolean({ description: 'Open the page in the default browser.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Ui);
    const config = configPaths(process.env);
    const ctx = this.openContext(flags.library, { config });
    const shutdown = listenForShutdown({ stdin: false });
    const { startUiServer } = await import('../ui/server.js');
    const ui = await startUiServer({ ctx, auditPath: config.audit, port: flags.port });
    if (this.jsonMode)
      this.emit({ url: ui.url, origin: ui.origin, port: ui.port, library: ctx.store.paths.root }, () => '');
    else {
      process.stdout.write(`bourdon ui: serving ${ctx.store.paths.root} on ${ui.origin} (this machine only)\n`);
      process.stdout.write(`Open this link (it works once): ${ui.url}\n`);
      process.stdout.write('Ctrl-C stops it.\n');
    }
    if (flags.open) openBrowser(ui.url, (message) => process.stderr.write(`bourdon: ${message}\n`));
    await shutdown.closeWhenRequested(() => ui.close());
    if (!this.jsonMode) process.stderr.write('bourdon ui: stopped\n');
  }
}

/** Hands the URL to the platform's opener; the URL goes as one argument, never through a shell. */
function openBrowser(url: string, warn: (message: string) => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => warn(`could not open a browser (${command}); open the link above by hand`));
    child.unref();
  } catch {
    warn(`could not open a browser (${command}); open the link above by hand`);
  }
}
