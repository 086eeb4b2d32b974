import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { InitResult } from '../../sync/setup.js';

export default class SyncInit extends BaseCommand {
  static override summary = 'Record the git remote this library is shared through.';
  static override description =
    "Any remote your own git can reach: a path to a bare repository, ssh, or https with your credential helper (credentials in the URL are refused). git must reach it now; nothing is recorded otherwise. The branch is the remote's default unless --branch names one. The library itself does not become a git repository: sync works in a folder under ~/.bourdon (BOURDON_HOME). This machine publishes under BOURDON_LOCAL_NAME, else its host name. See docs/sync.md.";
  static override examples = [
    '<%= config.bin %> sync init ~/team-library.git',
    '<%= config.bin %> sync init git@github.com:acme/team-library.git --branch main',
  ];
  static override args = {
    remote: Args.string({ description: 'The git remote (path, ssh or https URL).', required: true }),
  };
  static override flags = {
    branch: Flags.string({
      description: "Branch to publish on (default: the remote's default branch).",
      helpValue: '<name>',
    }),
  };

  async run(): Promise<InitResult> {
    const { args, flags } = await this.parse(SyncInit);
    const { initSync } = await import('../../sync/setup.js');
    const result = await initSync({
      library: this.libraryRoot(flags.library),
      env: process.env,
      remote: args.remote,
      branch: flags.branch,
    });
    return this.emit(
      result,
      () =>
        `sync remote for ${result.library}: ${result.remote} (branch ${result.branch})\nthis machine publishes as ${result.machine}; next: \`bourdon sync push\`, \`bourdon sync pull\``,
    );
  }
}
