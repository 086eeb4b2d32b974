import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { colors, plural } from '../../cli/output.js';
import { ACCESS_LEVELS } from '../../core/trust/access.js';
import { AGENT_TYPES } from '../../core/store/manifest.js';
import { addNote } from '../../core/operations/notes.js';
import { failed } from '../../core/payload.js';
import type { CommitSummary } from '../../core/writes/commit-types.js';
import type { StagedCommit } from '../../core/writes/staging.js';

export default class NoteAdd extends BaseCommand {
  static override summary = "Add a note to an agent's manifest.";
  static override description =
    'Commits one note (dated now, in local time with its offset, unless --date is given) to agents/<agent_id>.l5.yaml through the same path as commit_to_federation; it becomes a new version. A note with the same date and text is merged, not duplicated. List notes with `bourdon list-notes`.';
  static override examples = [
    '<%= config.bin %> note add codex "Release branch is frozen until Friday" --tag release --project "Release 2.4"',
    '<%= config.bin %> note add notes-bot "Idea: federated recall" --agent-type note-capture --visibility team',
  ];
  static override args = {
    agent_id: Args.string({ description: 'Agent id.', required: true }),
    text: Args.string({ description: 'The note.', required: true }),
  };
  static override flags = {
    tag: Flags.string({ description: 'A tag (repeatable).', multiple: true }),
    project: Flags.string({
      description: 'A project it is about (repeatable; becomes project_focus).',
      multiple: true,
    }),
    visibility: Flags.string({ description: 'public (default), team or private.', options: [...ACCESS_LEVELS] }),
    title: Flags.string({ description: 'A short title.' }),
    date: Flags.string({ description: 'YYYY-MM-DD or an ISO datetime (default: now).' }),
    'agent-type': Flags.string({
      description: 'Agent type, needed when the agent has no manifest yet.',
      options: [...AGENT_TYPES],
      helpValue: '<type>',
    }),
  };

  async run(): Promise<CommitSummary | StagedCommit> {
    const { args, flags } = await this.parse(NoteAdd);
    this.auditAs('note add', args.agent_id);
    const ctx = this.openContext(flags.library);
    this.assertAgentTypeForNew(ctx, args.agent_id, flags['agent-type']);
    const payload = await addNote(ctx, {
      agent_id: args.agent_id,
      text: args.text,
      title: flags.title ?? null,
      date: flags.date ?? null,
      tags: flags.tag ?? [],
      project_focus: flags.project ?? [],
      visibility: flags.visibility ?? null,
      agent_type: flags['agent-type'] ?? null,
    });
    if (failed(payload)) return this.failOnPayloadError(payload);
    this.auditDone(payload.staged ? 'staged' : `version ${payload.version}`);
    // The operator's note is written live; a member's would be staged (library use only).
    if (payload.staged) return this.emit(payload, () => payload.note);
    const c = colors();
    return this.emit(
      payload,
      () =>
        `${c.green('noted')} on ${payload.agent_id} ${c.bold(`version ${payload.version}`)} (${plural(payload.total_notes, 'note')})`,
    );
  }
}
