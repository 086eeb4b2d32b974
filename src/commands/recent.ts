import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { accessArgs, accessFlags } from '../cli/flags.js';
import { renderSessions } from '../cli/render.js';
import { listRecentWork } from '../core/operations/reads.js';
import type { SessionRef } from '../core/operations/queries.js';

export default class Recent extends BaseCommand {
  static override summary = 'What happened recently, across agents.';
  static override description =
    'Sessions since a day (default: the last 14 days), newest first. --since takes YYYY-MM-DD or an ISO datetime and filters by its calendar day as written. Tool: list_recent_work.';
  static override examples = [
    '<%= config.bin %> recent',
    '<%= config.bin %> recent --since 2026-06-01 --agent codex',
    '<%= config.bin %> recent --since 2026-01-01 --all --json | jq ".sessions | length"',
  ];
  static override flags = {
    since: Flags.string({ description: 'First day to include (YYYY-MM-DD or ISO datetime).' }),
    agent: Flags.string({ description: 'Only this agent.' }),
    limit: Flags.integer({ description: 'Page size, 1 to 100 (default 20).' }),
    cursor: Flags.string({ description: 'Continue from a previous page (its next_cursor).' }),
    summary: Flags.boolean({ description: 'Leave out key actions and files.', default: false }),
    all: Flags.boolean({
      description: 'Follow cursors and print every page as one.',
      default: false,
      exclusive: ['cursor'],
    }),
    ...accessFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Recent);
    const ctx = this.openContext(flags.library);
    const args = {
      since: flags.since,
      agent: flags.agent,
      limit: flags.limit,
      summary: flags.summary,
      ...accessArgs(flags),
    };
    const payload = await this.pages(
      'sessions',
      flags.all,
      (cursor) => listRecentWork(ctx, { ...args, cursor }),
      flags.cursor,
    );
    const more = payload.has_more ? `\nMore: bourdon recent --cursor ${payload.next_cursor as string}` : '';
    this.emit(payload, () => renderSessions(payload.sessions as SessionRef[], 'No sessions in this window.') + more);
  }
}
