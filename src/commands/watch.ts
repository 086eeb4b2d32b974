import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { listenForShutdown } from '../cli/shutdown.js';
import { truncate } from '../cli/width.js';
import { BourdonError } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import { ACCESS_LEVELS, type AccessLevel } from '../core/trust/access.js';
import { eventLine, type WatchEvent } from '../watch/events.js';

/** Each line fits 80 columns, whatever the terminal (a log file has none). */
const LINE_COLUMNS = 80;

export default class Watch extends BaseCommand {
  static override summary = 'Keep the library current: export each agent when its files change.';
  static override description =
    'Follows exactly the files and folders each participant reads (docs/participants.md lists them; not the whole home) and exports only the agent whose source changed, a moment after the last write (a burst of writes is one export), through the same path as `bourdon <agent> export`: a new version with history, audit and rollback, or nothing when the library already holds it. At the start it exports every agent whose sources exist once (--no-catch-up skips that). A source that appears while it runs is followed without a restart: at once under a folder it follows, else within --rescan seconds. OpenClaw, a server, is asked again every --poll seconds, never more often than its answers take. With a sync remote set (`bourdon sync init`) it pushes after exports that changed the library and pulls every --pull seconds; a failed push or pull is said once and retried with backoff. A failing agent is said once and tried again on its next change; the others go on. One line per event (80 columns), or JSON lines with --json. Ctrl-C or SIGTERM stops it cleanly. One watch per library: a second one refuses, naming the first. --install runs it as a per-user service that starts at login (systemd on Linux, launchd on macOS); --uninstall removes it. See docs/participants.md.';
  static override examples = [
    '<%= config.bin %> watch',
    '<%= config.bin %> watch --json --library ~/agent-library',
    '<%= config.bin %> watch --install',
  ];
  static override flags = {
    'access-level': Flags.string({
      description: 'Rows above this level are dropped before writing, as in `bourdon <agent> export` (default team).',
      options: [...ACCESS_LEVELS],
      default: 'team',
    }),
    debounce: Flags.integer({
      description: "Milliseconds of quiet after an agent's last change before it is exported.",
      min: 50,
      max: 60_000,
      default: 250,
    }),
    poll: Flags.integer({
      description:
        'Seconds between two exports of a polled agent (OpenClaw), at least as long as its last answer took.',
      min: 1,
      default: 300,
    }),
    rescan: Flags.integer({
      description:
        'Seconds between two looks at where each agent keeps its files, so an agent installed or a project begun while the watch runs is followed without a restart.',
      min: 1,
      default: 30,
    }),
    pull: Flags.integer({ description: 'Seconds between two pulls of the sync remote.', min: 1, default: 300 }),
    retry: Flags.integer({
      description: 'Seconds before a failed push or pull is tried again; the wait doubles up to 10 minutes.',
      min: 1,
      default: 15,
    }),
    'sync-level': Flags.string({
      description: 'Highest row visibility pushed to the sync remote, as `bourdon sync push --access-level`.',
      options: ['public', 'team'],
      default: 'public',
    }),
    install: Flags.boolean({
      description:
        'Install the watch as a per-user service that starts at login (a systemd user unit on Linux, a launchd agent on macOS), logging to ~/.bourdon/watch.log, and start it.',
      exclusive: ['uninstall'],
      default: false,
    }),
    uninstall: Flags.boolean({
      description: 'Stop and remove the per-user service.',
      exclusive: ['install'],
      default: false,
    }),
    'catch-up': Flags.boolean({
      description: 'Export every agent whose sources exist once at the start.',
      default: true,
      allowNo: true,
    }),
  };

  /** A long-running command: under --json its events are JSON lines as they happen, so `run()` returns nothing. */
  async run(): Promise<void> {
    const { flags } = await this.parse(Watch);
    if (flags.install || flags.uninstall) return this.service(flags.install, flags.library);
    const shutdown = listenForShutdown({ stdin: false });
    const json = this.jsonEnabled();
    const say = (event: WatchEvent) => {
      if (json) process.stdout.write(JSON.stringify(event) + '\n');
      else process.stdout.write(truncate(eventLine(event).replace(/[\r\n]+/g, ' '), LINE_COLUMNS) + '\n');
    };
    const config = configPaths(process.env);
    const library = this.libraryForExport(flags.library);
    const libraryRoot = library.store.paths.root;
    const [{ startWatch }, { PARTICIPANTS }, { readRemoteConfig, syncPaths }] = await Promise.all([
      import('../watch/loop.js'),
      import('../participants/registry.js'),
      import('../sync/workspace.js'),
    ]);
    let remote: boolean;
    try {
      remote = readRemoteConfig(syncPaths(libraryRoot, process.env)) !== null;
    } catch (error) {
      throw new BourdonError(`the sync remote's settings cannot be read: ${(error as Error).message}`, 'invalid_input');
    }
    const watch = await startWatch({
      libraryRoot,
      accessLevel: flags['access-level'] as AccessLevel,
      env: process.env,
      participants: PARTICIPANTS,
      debounceMs: flags.debounce,
      maxWaitMs: Math.max(flags.debounce * 4, 5_000),
      pollMs: flags.poll * 1000,
      rescanMs: flags.rescan * 1000,
      catchUp: flags['catch-up'],
      ignore: [config.home],
      sync: remote
        ? {
            library: libraryRoot,
            env: process.env,
            level: flags['sync-level'] as AccessLevel,
            pullMs: flags.pull * 1000,
            pushDelayMs: flags.debounce * 2,
            backoffMs: flags.retry * 1000,
            maxBackoffMs: 10 * 60 * 1000,
          }
        : null,
      say,
    });
    await shutdown.requested;
    await watch.stop();
  }

  /** `--install` / `--uninstall`: the service file, and the service manager asked when it is reachable. */
  private async service(install: boolean, libraryFlag: string | undefined): Promise<void> {
    const { installService, uninstallService } = await import('../watch/service.js');
    const { packageRoot } = await import('../core/admin/package-root.js');
    const pathModule = await import('node:path');
    let change;
    try {
      if (install) {
        const library = this.libraryForExport(libraryFlag).store.paths.root;
        const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
        for (const name of ['BOURDON_HOME', 'BOURDON_LOCAL_NAME'] as const)
          if (process.env[name]) env[name] = process.env[name]!;
        change = await installService(
          { node: process.execPath, cli: pathModule.join(packageRoot(), 'bin', 'run.js'), library, env },
          process.env,
        );
      } else change = await uninstallService(process.env);
    } catch (error) {
      if (error instanceof BourdonError) throw error;
      throw new BourdonError((error as Error).message, 'unavailable');
    }
    if (this.jsonEnabled()) {
      this.logJson(change);
      return;
    }
    const kind = change.manager === 'systemd' ? 'systemd user unit' : 'launchd agent';
    const lines: string[] = [];
    if (change.outcome === 'absent') lines.push(`no watch service to remove (${change.file} is not there)`);
    else if (change.outcome === 'removed') lines.push(`removed the watch service (${kind} ${change.file})`);
    else
      lines.push(
        `${change.outcome === 'replaced' ? 'replaced' : 'installed'} the watch service: ${kind} ${change.file}, starting at login; its log: ${change.log}`,
      );
    for (const ran of change.ran) if (!ran.ok) lines.push(`\`${ran.command}\` failed: ${ran.detail}`);
    if (change.manual)
      lines.push(`not asked of the service manager: ${change.manual.reason}; run: ${change.manual.command}`);
    this.say(lines.join('\n'));
  }
}
