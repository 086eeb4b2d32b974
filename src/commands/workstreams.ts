import { BaseCommand } from '../cli/base-command.js';
import { nextPageCommand, oclifFlags, shaping } from '../cli/flags.js';
import { commandHint, list, relativeDay, statusStyle, styled, table } from '../cli/output.js';
import { withHint } from '../cli/render.js';
import type { Workstream } from '../core/operations/workstreams.js';
import { workstreamsCommand, workstreamsPayload } from '../cli/read-commands.js';
import { listWorkstreamsOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { ListWorkstreamsAnswer } from '../core/operations/workstreams.js';

export default class Workstreams extends BaseCommand {
  static override summary = 'What is in flight, across agents.';
  static override description = `Every project named in sessions and notes, with its agents, counts, first and last activity and status: active (activity in the last 14 days), idle, or archived (its entity has a past valid_to or an archived/canceled tag). Sorted by last activity. Tool: ${listWorkstreamsOperation.name}.`;
  static override examples = [
    '<%= config.bin %> workstreams',
    '<%= config.bin %> workstreams --status idle',
    '<%= config.bin %> workstreams --since 2026-06-01 --json | jq -r ".workstreams[] | [.name, .status] | @tsv"',
  ];
  static override flags = oclifFlags(workstreamsCommand.flags);

  async run(): Promise<ListWorkstreamsAnswer> {
    const { flags } = await this.parse(Workstreams);
    const payload = await workstreamsPayload(this.open, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const more = payload.has_more
      ? '\n' +
        commandHint(
          'More: ',
          nextPageCommand('workstreams', { ...shaping(flags), status: flags.status }, String(payload.next_cursor)),
        )
      : '';
    const hint = await this.heldBackHint(flags, 'public', ['workstream', 'workstreams'], async (level) => {
      const whole = await workstreamsPayload(this.open, {
        ...flags,
        'access-level': level,
        cursor: undefined,
        all: true,
      });
      return failed(whole) ? 0 : whole.workstreams.length;
    });
    return this.emit(payload, () => withHint(renderWorkstreams(payload.workstreams), hint) + more);
  }
}

function renderWorkstreams(streams: Workstream[]): string {
  if (streams.length === 0) return 'No workstreams.';
  const paint = (status: string) => styled(status, statusStyle(status));
  const rows = streams.map((stream) => [
    stream.name,
    paint(stream.status),
    relativeDay(stream.last_activity),
    list(stream.agents),
    String(stream.session_count),
    String(stream.note_count),
    list(stream.recent_actions),
  ]);
  return table(['WORKSTREAM', 'STATUS', 'LAST', 'AGENTS', 'SESSIONS', 'NOTES', 'RECENT'], rows, { flex: [3, 6] });
}
