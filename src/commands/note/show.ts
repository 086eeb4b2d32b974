import { BaseCommand } from '../../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../../cli/flags.js';
import { colors, list, relativeDay, wrap } from '../../cli/output.js';
import { noteShowCommand } from '../../cli/read-commands.js';
import type { ShownNote } from '../../core/operations/notes.js';
import { failed } from '../../core/payload.js';
import type { ShowNoteAnswer } from '../../core/operations/notes.js';

export default class NoteShow extends BaseCommand {
  static override summary = 'One note, whole.';
  static override description =
    "Prints one note in full: its date, title, tags, projects, visibility and text, which `bourdon list-notes` cuts to the width. The id is <agent>:<n>, the note's place in that agent's manifest, as list-notes shows it; it holds until the manifest is replaced, rolled back or edited by hand. Read at public level unless --access-level says otherwise; the text is redacted as list-notes redacts it.";
  static override examples = [
    '<%= config.bin %> note show claude-code:1',
    '<%= config.bin %> note show claude-code:1 --access-level team --json | jq -r .note.text',
  ];
  static override args = oclifArgs(noteShowCommand.args);
  static override flags = oclifFlags(noteShowCommand.flags);

  async run(): Promise<ShowNoteAnswer> {
    const { args, flags } = await this.parse(NoteShow);
    const payload = await noteShowCommand.payload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    return this.emit(payload, () => renderNote(payload.note));
  }
}

/** A header of labelled fields, then the text wrapped at the terminal's width. */
function renderNote(note: ShownNote): string {
  const c = colors();
  const fields: [string, string][] = [
    ['Date', `${note.date} (${relativeDay(note.date)})`],
    ['Agent', note.agent],
    ['Tags', list(note.tags)],
    ['Projects', list(note.project_focus)],
    ['Visibility', note.visibility],
  ];
  const header = fields.map(([label, value]) => wrap(`${c.dim(label.padEnd(11))}${value}`, { continuation: 11 }));
  const title = note.title ? [c.bold(wrap(note.title)), ''] : [];
  return [`${c.bold(`Note ${note.id}`)}`, ...header, '', ...title, wrap(note.text, { continuation: 0 })].join('\n');
}
