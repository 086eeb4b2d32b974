import { Flags } from '@oclif/core';
import { BaseCommand, cliWarn } from '../../cli/base-command.js';
import { plural } from '../../cli/output.js';
import type { AccessLevel } from '../../core/trust/access.js';
import type { PushResult } from '../../sync/push.js';
import { MAX_PUBLICATION_BYTES } from '../../core/store/pulled.js';

export default class SyncPush extends BaseCommand {
  static override summary = "Publish this machine's manifests to the sync remote, filtered to a level.";
  static override description =
    'One commit in machines/<this machine>/ on the remote, naming the machine and what changed. Only rows at or below --access-level are published (public by default; private never leaves the machine), every text redacted as the read surfaces redact it, and only the manifest fields of the L5 format. A manifest that does not parse is skipped with a warning, never copied; history, staging, the audit log, members, peers and config are never published. When another machine pushed first, the push fetches and tries again. See docs/sync.md.';
  static override examples = ['<%= config.bin %> sync push', '<%= config.bin %> sync push --access-level team --json'];
  static override flags = {
    'access-level': Flags.option({
      description: 'Highest row visibility published.',
      options: ['public', 'team'] as const satisfies readonly AccessLevel[],
      default: 'public',
    })(),
    'accept-rewrite': Flags.boolean({
      description: "Go on although the remote's history was rewritten since this machine last saw it.",
      default: false,
    }),
  };

  async run(): Promise<PushResult> {
    const { flags } = await this.parse(SyncPush);
    this.auditAs('sync push', '*');
    const { pushLibrary } = await import('../../sync/push.js');
    const stop = this.startProgress('publishing…');
    let result;
    try {
      result = await pushLibrary({
        library: this.libraryRoot(flags.library),
        env: process.env,
        level: flags['access-level'],
        acceptRewrite: flags['accept-rewrite'],
        warn: cliWarn,
      });
    } finally {
      stop();
    }
    this.auditDone(
      result.pushed
        ? `published ${plural(result.agents, 'agent')} as ${result.machine} at ${result.access_level} (commit ${result.commit?.slice(0, 12)})`
        : `nothing to publish (${result.machine} at ${result.access_level})`,
    );
    // One line for every agent left out with no rows at the level, whatever else happened.
    const empty = result.empty.length
      ? [
          `not published, no rows at ${result.access_level}: ${plural(result.empty.length, 'agent')} (${result.empty.join(', ')})`,
        ]
      : [];
    if (result.over_cap.length)
      empty.push(
        `not published, over the ${MAX_PUBLICATION_BYTES / (1024 * 1024)} MiB one machine may publish: ${plural(result.over_cap.length, 'agent')} (${result.over_cap.join(', ')})`,
      );
    return this.emit(result, () => {
      if (!result.pushed)
        return [
          `nothing to publish: the remote has ${result.machine}'s ${plural(result.agents, 'agent')} at ${result.access_level} as they are`,
          ...empty,
        ].join('\n');
      const lines = [
        `published ${plural(result.agents, 'agent')} of ${result.machine} at ${result.access_level} (commit ${result.commit?.slice(0, 12)})`,
        ...result.changes.map((change) =>
          change.change === 'removed'
            ? `  removed  ${change.agent}`
            : `  ${change.change.padEnd(8)} ${change.agent}: ${plural(change.entities ?? 0, 'entity', 'entities')}, ${plural(change.sessions ?? 0, 'session')}, ${plural(change.notes ?? 0, 'note')}`,
        ),
      ];
      lines.push(...empty);
      if (result.skipped.length)
        lines.push(`${plural(result.skipped.length, 'manifest')} not published (see the warnings above)`);
      return lines.join('\n');
    });
  }
}
