/**
 * oclif's own `--json` (`enableJsonFlag`), printed as Bourdon prints a payload. `run()` returns
 * the command's answer and oclif prints it under --json (`logJson`), so a Node script may
 * `await Find.run(['x'])` and get the answer. Every command with --json extends this.
 */
import { Command } from '@oclif/core';
import { jsonText } from './read-commands.js';

export abstract class JsonCommand extends Command {
  static override enableJsonFlag = true;

  /** The exact payload, as the MCP tool and the fast path print it (oclif's own may colour it). */
  override logJson(json: unknown): void {
    process.stdout.write(jsonText(json));
  }
}
