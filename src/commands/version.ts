import { Command, Flags } from '@oclif/core';

export default class Version extends Command {
  static override summary = 'Print the version (same as --version and -v).';
  static override description =
    'Prints `bourdon/<version> <platform>-<arch> node-<version>`, as `bourdon --version` and `bourdon -v` do. With --json: {"name","version","node","platform","arch"}.';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];
  static override flags = {
    json: Flags.boolean({ description: 'Print the version as JSON.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    if (!flags.json) {
      process.stdout.write(`${this.config.userAgent}\n`);
      return;
    }
    const payload = {
      name: this.config.name,
      version: this.config.version,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    };
    process.stdout.write(JSON.stringify(payload, null, 2) + '\n');
  }
}
