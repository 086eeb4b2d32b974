import { Flags } from '@oclif/core';
import { BaseCommand, cliWarn } from '../../cli/base-command.js';
import { plural } from '../../cli/output.js';
import type { PullResult } from '../../sync/pull.js';

export default class SyncPull extends BaseCommand {
  static override summary = "Bring every other machine's published manifests into this library.";
  static override description =
    "They land in <library>/pulled/<machine>/ and are served as sync:<machine>:<agent>, never above the level their machine published them at; this machine's own manifests are never changed. Each remote file is checked on its own: one that does not parse, is too large, sits outside its machine's agents/ folder or names another agent is refused with its reason, and the rest applies. A machine whose publication is unsigned, mis-signed, signed by another key than the one first seen for it (see `bourdon sync trust`) or not what it signed is refused whole, as is one over 32 MiB, or past the 64 MiB a pull keeps in all. A remote whose history was rewritten (force-pushed) is refused as a whole. Exits 1 when anything was refused. See docs/sync.md.";
  static override examples = ['<%= config.bin %> sync pull', '<%= config.bin %> sync pull --json'];
  static override flags = {
    'accept-rewrite': Flags.boolean({
      description: "Go on although the remote's history was rewritten since this machine last saw it.",
      default: false,
    }),
  };

  async run(): Promise<PullResult> {
    const { flags } = await this.parse(SyncPull);
    this.auditAs('sync pull', '*');
    const { pullLibrary } = await import('../../sync/pull.js');
    let stop = this.startProgress('fetching…');
    let result;
    try {
      result = await pullLibrary({
        library: this.libraryRoot(flags.library),
        env: process.env,
        acceptRewrite: flags['accept-rewrite'],
        warn: cliWarn,
        progress: (done, total) => {
          if (total < 50 || done % 10 !== 0) return;
          stop();
          stop = this.startProgress(`checking manifests ${done}/${total}…`);
        },
      });
    } finally {
      stop();
    }
    for (const refusal of result.refused) cliWarn(`refused ${JSON.stringify(refusal.path)}: ${refusal.reason}`);
    this.emit(result, () => {
      if (!result.commit) return 'the remote has nothing published yet';
      const lines = result.machines.map((machine) => {
        const changed = [
          machine.added.length ? `${machine.added.length} added` : '',
          machine.updated.length ? `${machine.updated.length} updated` : '',
          machine.removed.length ? `${machine.removed.length} removed` : '',
        ].filter(Boolean);
        const key = machine.first_use ? `; key ${machine.key} trusted on first use` : '';
        return `${machine.machine}: ${plural(machine.agents, 'agent')} at ${machine.access_level}, published ${machine.published_at ?? '?'}${changed.length ? ` (${changed.join(', ')})` : ' (up to date)'}${key}`;
      });
      for (const gone of result.gone) lines.push(`${gone}: no longer publishes; its pulled copy was removed`);
      if (!lines.length) lines.push('no other machine publishes on this remote yet');
      if (result.refused.length) lines.push(`${plural(result.refused.length, 'file')} refused (see above)`);
      return lines.join('\n');
    });
    const changed = result.machines.reduce(
      (sum, machine) => sum + machine.added.length + machine.updated.length + machine.removed.length,
      0,
    );
    this.auditDone(
      `commit ${result.commit?.slice(0, 12) ?? 'none'}: ${plural(result.machines.length, 'machine')}, ${plural(changed, 'agent')} changed, ${result.gone.length} gone, ${plural(result.refused.length, 'file')} refused`,
    );
    if (result.refused.length) this.exitAfter(result, 1);
    return result;
  }
}
