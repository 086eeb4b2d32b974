import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Args } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { packageRoot } from '../core/admin/package-root.js';
import { BourdonError } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import { PARTICIPANTS, participantById } from '../participants/registry.js';

export default class Hook extends BaseCommand {
  static override summary = "An agent's end-of-turn hook: refresh its manifest in the background.";
  static override description = `What the hooks \`bourdon init\` installs run (Codex's \`notify\` program, Cursor's \`stop\` hook in ~/.cursor/hooks.json): it starts \`bourdon <agent> export --library …\` in a process of its own, detached, and returns at once, printing nothing, so the agent never waits on it; the export's output is appended to ~/.bourdon/hooks.log. The JSON Codex passes (its last argument) is read for its type: only \`agent-turn-complete\` exports. A running \`bourdon watch\` makes the hooks unnecessary, but they do no harm (an export that changes nothing writes nothing). \`bourdon init --remove-hooks\` takes the hooks out. See docs/participants.md.`;
  static override examples = [
    '<%= config.bin %> hook codex --library ~/agent-library',
    '<%= config.bin %> hook cursor',
  ];
  static override args = {
    agent: Args.string({
      description: `The agent whose manifest to refresh (${PARTICIPANTS.map((p) => p.agentId).join(', ')}).`,
      required: true,
    }),
    payload: Args.string({ description: 'What the agent passes (Codex: a JSON notification); only its type is read.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Hook);
    const participant = participantById(args.agent);
    if (!participant)
      throw new BourdonError(
        `no agent ${JSON.stringify(args.agent)}: one of ${PARTICIPANTS.map((p) => p.agentId).join(', ')}`,
        'usage',
      );
    if (args.payload !== undefined) {
      let type: unknown;
      try {
        type = (JSON.parse(args.payload) as { type?: unknown }).type;
      } catch {
        type = null;
      }
      // Codex notifies of other things too; only the end of a turn means new memory.
      if (type !== null && type !== undefined && type !== 'agent-turn-complete') return;
    }
    const library = this.libraryRoot(flags.library);
    const log = path.join(configPaths(process.env).home, 'hooks.log');
    let out: number | 'ignore';
    try {
      fs.mkdirSync(path.dirname(log), { recursive: true, mode: 0o700 });
      out = fs.openSync(log, 'a', 0o600);
    } catch {
      out = 'ignore';
    }
    const child = spawn(
      process.execPath,
      [path.join(packageRoot(), 'bin', 'run.js'), participant.topic, 'export', '--library', path.resolve(library)],
      { detached: true, stdio: ['ignore', out, out], env: { ...process.env, NO_COLOR: '1' } },
    );
    child.unref();
    if (typeof out === 'number') fs.closeSync(out);
    // Cursor reads a hook's stdout as JSON: an empty object asks nothing of it.
    if (participant.agentId === 'cursor') process.stdout.write('{}\n');
  }
}
