import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { stderrLine } from '../cli/width.js';
import { configPaths } from '../core/store/config.js';
import { listenForShutdown } from '../cli/shutdown.js';

export default class Ui extends BaseCommand {
  static override summary = 'A local page to see the library and review what agents wrote.';
  static override description =
    'Serves a page on 127.0.0.1 only: agents and their health, an activity timeline, workstreams, staged writes (promote or reject), the history of each agent (what each version changed; roll back) and the audit log. It prints a link with a one-time token; open it in a browser on this machine. Writes go through the same operations as `bourdon staging promote|reject` and `bourdon rollback`, as the operator. Ctrl-C stops it. Run it again while it serves the same library (say, after closing the tab) and it asks that server for a new one-time link instead of starting another. See docs/ui.md.';
  static override examples = [
    '<%= config.bin %> ui',
    '<%= config.bin %> ui --port 7600 --open',
    '<%= config.bin %> ui --library ~/agent-library',
  ];
  static override flags = {
    port: Flags.integer({ description: 'Port on 127.0.0.1 (default: any free port).', min: 0, max: 65535, default: 0 }),
    open: Flags.boolean({
      description: 'Open the page in the default browser (with a new link when it is already serving).',
      default: false,
    }),
  };

  /**
   * A server: under --json its answer (where it serves) is printed as soon as it serves, not
   * returned when it stops, so `run()` returns nothing.
   */
  async run(): Promise<void> {
    const { flags } = await this.parse(Ui);
    const config = configPaths(process.env);
    const ctx = this.openContext(flags.library, { config });
    const warn = (message: string, kind: 'note' | 'warning' = 'warning') =>
      process.stderr.write(stderrLine(kind === 'note' ? `bourdon ui: ${message}` : `bourdon: ${message}`));
    const { askRunningUi, linkSocketPath } = await import('../ui/link-channel.js');
    const linkSocket = linkSocketPath(config.home, ctx.store.paths.root);
    // Already serving this library: a new one-time link from that server, not a second server.
    const running = linkSocket ? await askRunningUi(linkSocket) : null;
    if (running) {
      if (this.jsonEnabled()) this.logJson({ ...running, running: true });
      else
        this.say([
          `bourdon ui: already serving ${running.library} on ${running.origin}`,
          'Open this new link (it works once; the one before it no longer does):',
          { verbatim: running.url },
        ]);
      if (flags.open) {
        const opener = openBrowser(running.url, warn, {
          keepMs: BRIEF_REDIRECT_FILE_MS,
          holdProcess: true,
          // Said only once the browser has the file: the wait is for it, and ends with the file.
          onOpened: () =>
            warn(
              `the browser is opening the link printed above; this ends in ${BRIEF_REDIRECT_FILE_MS / 1000} s, when the file it opens is removed (Ctrl-C ends it now)`,
              'note',
            ),
        });
        process.once('SIGINT', () => {
          opener.cleanup();
          process.exit(130);
        });
        await opener.closed;
      }
      return;
    }
    const shutdown = listenForShutdown({ stdin: false });
    const { startUiServer } = await import('../ui/server.js');
    const ui = await startUiServer({ ctx, auditPath: config.audit, port: flags.port, linkSocket });
    if (this.jsonEnabled())
      this.logJson({ url: ui.url, origin: ui.origin, port: ui.port, library: ctx.store.paths.root });
    else
      this.say([
        `bourdon ui: serving ${ctx.store.paths.root} on ${ui.origin} (this machine only)`,
        'Open this link (it works once):',
        // Whole on a line of its own: a terminal that wraps a long line still opens and copies
        // it as one link, where a line broken inside it would not (the one line allowed past
        // the width, docs/cli.md).
        { verbatim: ui.url },
        'Ctrl-C stops it. For a new link later, run `bourdon ui` again.',
      ]);
    const opener = flags.open ? openBrowser(ui.url, warn, { keepMs: REDIRECT_FILE_MS, holdProcess: false }) : null;
    await shutdown.closeWhenRequested(() => ui.close());
    opener?.cleanup();
    if (!this.jsonEnabled()) process.stderr.write('bourdon ui: stopped\n');
  }
}

/** How long the redirect file the browser opens is kept (the browser reads it at once). */
const REDIRECT_FILE_MS = 60_000;
/** The same when the command only asked a running server for a link: it waits this long, then exits. */
const BRIEF_REDIRECT_FILE_MS = 15_000;

/**
 * Opens the page without putting the link's token in any process's argv (the process list is
 * readable by every local user): the link goes into a file only this user can read, in a
 * private temp folder, that redirects to it; the platform's opener gets the file's path. The
 * file is removed after `keepMs`, or when the command ends; `closed` settles when it is gone.
 * `holdProcess` keeps the process alive until then (a command that only asked for a link).
 * An opener that cannot run or fails (no browser: xdg-open exits non-zero) is said at once, in
 * one line pointing at the printed link, and the file goes at once: nothing is left to wait for.
 * `onOpened` runs when the opener has handed the file on (exit 0).
 */
function openBrowser(
  url: string,
  warn: (message: string) => void,
  options: { keepMs: number; holdProcess: boolean; onOpened?: () => void },
): { cleanup(): void; closed: Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-ui-')); // mode 700
  const file = path.join(dir, 'open.html');
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  const link = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  fs.writeFileSync(
    file,
    `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${link}"><title>bourdon ui</title><a href="${link}">Open bourdon ui</a>\n`,
    { mode: 0o600 },
  );
  let removed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (removed = resolve));
  const timer = setTimeout(() => {
    cleanup();
    removed();
  }, options.keepMs);
  if (!options.holdProcess) timer.unref();
  const target = pathToFileURL(file).href;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [target]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', target]]
        : ['xdg-open', [target]];
  let failedOnce = false;
  // A spawn that fails may report both 'error' and 'exit': one line.
  const failed = (why: string) => {
    if (failedOnce) return;
    failedOnce = true;
    warn(`could not open a browser (${why}); the link is printed above: open it by hand`);
    clearTimeout(timer);
    cleanup();
    removed();
  };
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => failed(`${command} did not start`));
    child.on('exit', (code, signal) => {
      if (code === 0) options.onOpened?.();
      else if (code !== null || signal !== null)
        failed(code !== null ? `${command} exited with ${code}` : `${command} stopped by ${signal}`);
    });
    child.unref();
  } catch {
    failed(`${command} did not start`);
  }
  return { cleanup, closed };
}
