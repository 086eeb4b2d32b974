import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { TrustResult } from '../../sync/trust.js';

export default class SyncTrust extends BaseCommand {
  static override summary = "Trust a machine's new signing key in place of the one trusted before.";
  static override description =
    "A pull takes a machine's publication only when it is signed by the key first seen for that machine. When a teammate's key changed on purpose (a new library, a lost key file), check its fingerprint with them (`bourdon sync status` shows it), then run this: the key that signs the machine's publication on the remote now is trusted, and the next `bourdon sync pull` takes it. Refused when the publication is unsigned or its signature does not verify. See docs/sync.md.";
  static override examples = ['<%= config.bin %> sync trust laptop', '<%= config.bin %> sync trust laptop --json'];
  static override args = {
    machine: Args.string({ description: 'The machine whose key to trust (its name on the remote).', required: true }),
  };

  async run(): Promise<TrustResult> {
    const { args, flags } = await this.parse(SyncTrust);
    this.auditAs('sync trust', '*');
    const { trustMachine } = await import('../../sync/trust.js');
    const result = await trustMachine({
      library: this.libraryRoot(flags.library),
      env: process.env,
      machine: args.machine,
    });
    this.auditDone(
      `${result.machine}: ${result.changed ? `trusts ${result.fingerprint} (was ${result.previous ?? 'none'})` : `already trusted ${result.fingerprint}`}`,
    );
    return this.emit(result, () =>
      result.changed
        ? `${result.machine}: now trusting key ${result.fingerprint}${result.previous ? ` (was ${result.previous})` : ''}; \`bourdon sync pull\` takes its publication`
        : `${result.machine}: key ${result.fingerprint} was already trusted; nothing changed`,
    );
  }
}
