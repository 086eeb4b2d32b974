import { BaseCommand } from '../cli/base-command.js';
import { nextPageCommand, oclifFlags, shaping } from '../cli/flags.js';
import { renderSessions, withHint } from '../cli/render.js';
import { commandHint } from '../cli/output.js';
import { recentCommand, recentPayload } from '../cli/read-commands.js';
import { listRecentWorkOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { ListRecentWorkAnswer } from '../core/operations/recent-work.js';

export default class Recent extends BaseCommand {
  static override summary = 'What happened recently, across agents.';
  static override description = `Sessions since a day (default: the last 14 days), newest first. --since filters by the calendar day it names (a datetime by its day as written); an unreadable --since is a usage error. The table fits the terminal (--wide shows everything); the "More:" line repeats the query with its cursor. Tool: ${listRecentWorkOperation.name}.`;
  static override examples = [
    '<%= config.bin %> recent',
    '<%= config.bin %> recent --since 2026-06-01 --agent codex',
    '<%= config.bin %> recent --since 7d --access-level team',
    '<%= config.bin %> recent --since 2026-01-01 --all --json | jq ".sessions | length"',
  ];
  static override flags = oclifFlags(recentCommand.flags);

  async run(): Promise<ListRecentWorkAnswer> {
    const { flags } = await this.parse(Recent);
    const payload = await recentPayload(this.open, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const more = payload.has_more
      ? '\n' +
        commandHint(
          'More: ',
          nextPageCommand('recent', { ...shaping(flags), summary: flags.summary }, String(payload.next_cursor)),
        )
      : '';
    const hint = await this.heldBackHint(flags, 'public', ['session', 'sessions'], async (level) => {
      const whole = await recentPayload(this.open, { ...flags, 'access-level': level, cursor: undefined, all: true });
      return failed(whole) ? 0 : whole.sessions.length;
    });
    return this.emit(
      payload,
      () => withHint(renderSessions(payload.sessions, 'No sessions in this window.'), hint) + more,
    );
  }
}
