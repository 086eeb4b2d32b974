import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { plural, table } from '../../cli/output.js';
import type { SyncStatus as SyncStatusReport } from '../../sync/status.js';

export default class SyncStatus extends BaseCommand {
  static override summary = 'What is ahead of and behind the remote, and when each machine last published.';
  static override description =
    "Ahead: the agents a push would add, change or remove (at the level this machine last published at). Behind: commits on the remote since this machine last pulled, and the machines whose publication is newer than the copy pulled here. KEY: the fingerprint of the key each machine's publication is signed by, and how it stands here (trusted, new, other key, unsigned, mis-signed; for this machine, whether this library signed it); a line says when the remote holds a publication for this machine that this library did not sign. Fetches first, unless --offline. See docs/sync.md.";
  static override examples = ['<%= config.bin %> sync status', '<%= config.bin %> sync status --offline --json'];
  static override flags = {
    offline: Flags.boolean({ description: 'Do not fetch: compare with the remote as last fetched.', default: false }),
  };

  async run(): Promise<SyncStatusReport> {
    const { flags } = await this.parse(SyncStatus);
    const { syncStatus } = await import('../../sync/status.js');
    const status = await syncStatus({
      library: this.libraryRoot(flags.library),
      env: process.env,
      offline: flags.offline,
    });
    return this.emit(status, () => {
      const lines = [
        `remote ${status.remote} (${status.branch}), this machine: ${status.machine}${status.offline ? ' (offline)' : ''}`,
      ];
      if (status.history_rewritten)
        lines.push(
          "the remote's history was rewritten since this machine last saw it: pull and push refuse until you run them with --accept-rewrite",
        );
      if (status.push_blocked) lines.push(`cannot push: ${status.push_blocked}`);
      if (status.foreign_publication) lines.push(status.foreign_publication);
      lines.push(`this library's key: ${status.key ?? 'none yet (the first push makes it)'}`);
      lines.push(
        status.ahead.length
          ? `ahead: ${status.ahead.map((change) => `${change.agent} (${change.change})`).join(', ')}`
          : 'ahead: nothing to publish',
      );
      const behindMachines = status.machines.filter((machine) => machine.behind).map((machine) => machine.machine);
      lines.push(
        status.behind_commits || behindMachines.length
          ? `behind: ${plural(status.behind_commits, 'commit')}${behindMachines.length ? ` (${behindMachines.join(', ')})` : ''}: \`bourdon sync pull\``
          : 'behind: up to date',
      );
      if (status.machines.length)
        lines.push(
          '',
          table(
            ['MACHINE', 'LEVEL', 'AGENTS', 'PUBLISHED', 'PULLED', 'KEY'],
            status.machines.map((machine) => [
              machine.this_machine ? `${machine.machine} (this)` : machine.machine,
              machine.access_level ?? '?',
              String(machine.agents),
              machine.published_at ?? '?',
              machine.this_machine ? '-' : machine.behind ? 'behind' : 'up to date',
              `${machine.key ? `${machine.key.slice(0, 19)}… ` : ''}${machine.signature}`,
            ]),
          ),
        );
      return lines.join('\n');
    });
  }
}
