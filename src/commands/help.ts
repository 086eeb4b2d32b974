import { Args, loadHelpClass } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { groupTitle } from '../cli/help.js';
import { stderrLine } from '../cli/width.js';

export default class HelpCommand extends JsonCommand {
  static override summary = "Commands by task, a topic's guide, or one command's help.";
  static override description =
    'Without arguments, lists every command grouped by what you want to do; with --json, every command as {commands: [{id, summary, group}]}. `bourdon help <topic>` (agent, staging, peers, note) opens with a short guide to that area; `bourdon help <command>` is the same as `bourdon <command> --help`.';
  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help peers',
    '<%= config.bin %> help staging promote',
  ];
  static override args = {
    subject: Args.string({ description: 'A topic or command (words separated by spaces).', required: false }),
  };
  static override strict = false;

  async run(): Promise<{ commands: { id: string; summary: string; group: string }[] } | undefined> {
    const { argv } = await this.parse(HelpCommand);
    if (this.jsonEnabled()) {
      const commands = this.config.commands
        .filter((command) => !command.hidden)
        .map((command) => ({
          id: command.id.replaceAll(':', ' '),
          summary: command.summary ?? '',
          group: groupTitle(command.id),
        }))
        .sort((a, b) => a.id.localeCompare(b.id));
      return { commands };
    }
    const Help = await loadHelpClass(this.config);
    const help = new Help(this.config, this.config.pjson.oclif?.helpOptions ?? this.config.pjson.helpOptions);
    try {
      await help.showHelp(argv as string[]);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0]!;
      process.stderr.write(
        stderrLine(
          `bourdon: ${message.replace(/^Command (.+) not found\.?$/, (_, id: string) => `no command or topic "${id.replaceAll(':', ' ')}"`)} (see \`bourdon help\`)`,
        ),
      );
      this.exit(2);
    }
  }
}
