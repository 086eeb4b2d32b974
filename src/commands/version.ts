import { JsonCommand } from '../cli/json-command.js';

/** What `version --json` answers. */
interface VersionPayload {
  name: string;
  version: string;
  node: string;
  platform: string;
  arch: string;
}

export default class Version extends JsonCommand {
  static override summary = 'Print the version (same as --version and -v).';
  static override description =
    'Prints `bourdon/<version> <platform>-<arch> node-<version>`, as `bourdon --version` and `bourdon -v` do. With --json: {"name","version","node","platform","arch"}.';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  async run(): Promise<VersionPayload> {
    await this.parse(Version);
    if (!this.jsonEnabled()) process.stdout.write(`${this.config.userAgent}\n`);
    return {
      name: this.config.name,
      version: this.config.version,
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    };
  }
}
