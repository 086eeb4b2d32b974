import { BaseCommand } from '../cli/base-command.js';
import { nextPageCommand, oclifFlags, shaping } from '../cli/flags.js';
import { commandHint, list, outputColumns, relativeDay, table } from '../cli/output.js';
import { displayWidth, truncate } from '../cli/width.js';
import { withHint } from '../cli/render.js';
import { noteIdsOf, type NoteRef } from '../core/operations/notes.js';
import { listNotesCommand, listNotesPayload } from '../cli/read-commands.js';
import { listNotesOperation } from '../core/operations/read-operations.js';
import { failed } from '../core/payload.js';
import type { ListNotesAnswer } from '../core/operations/notes.js';

export default class ListNotes extends BaseCommand {
  static override summary = 'Notes agents left, newest first.';
  static override description = `Notes since a day (default: the last 14 days), filtered by agent, tag or project; texts are redacted. The ID column names each note for \`bourdon note show\`, which prints it whole. Paged like \`bourdon recent\`. Tool: ${listNotesOperation.name}.`;
  static override examples = [
    '<%= config.bin %> list-notes',
    '<%= config.bin %> list-notes --since 7d --tag decision --project "Sync Engine"',
    '<%= config.bin %> list-notes --since 2026-01-01 --all --json | jq -r ".notes[].text"',
  ];
  static override flags = oclifFlags(listNotesCommand.flags);

  async run(): Promise<ListNotesAnswer> {
    const { flags } = await this.parse(ListNotes);
    const payload = await listNotesPayload(this.open, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const more = payload.has_more
      ? '\n' +
        commandHint(
          'More: ',
          nextPageCommand(
            'list-notes',
            { ...shaping(flags), tag: flags.tag, project: flags.project },
            String(payload.next_cursor),
          ),
        )
      : '';
    const hint = await this.heldBackHint(flags, 'public', ['note', 'notes'], async (level) => {
      const whole = await listNotesPayload(this.open, {
        ...flags,
        'access-level': level,
        cursor: undefined,
        all: true,
      });
      return failed(whole) ? 0 : whole.notes.length;
    });
    return this.emit(payload, () => {
      const ids = payload.notes.length ? noteIdsOf(this.open(flags.library), payload.notes) : [];
      return withHint(renderNotes(payload.notes, ids), hint) + more;
    });
  }
}

/** Tags are cut no shorter than this, so the note's text keeps the room once it must be cut too. */
const TAGS_WIDTH = 10;

/**
 * One date column (relative: the exact date is in --json), the note's id (`bourdon note show`
 * reads it whole; a peer's note has none and shows its agent) and the text given the room. Only
 * what does not fit is cut: a table that fits the width shows every tag; one that does not cuts
 * the tags by just the excess, down to TAGS_WIDTH, and only then the note. `--wide` shows everything.
 */
function renderNotes(notes: NoteRef[], ids: (string | null)[]): string {
  if (notes.length === 0) return 'No notes in this window.';
  const headers = ['WHEN', 'ID', 'NOTE', 'TAGS'];
  const rows = notes.map((note, i) => [
    relativeDay(note.date),
    ids[i] ?? note.agent,
    note.title ? `${note.title}: ${note.text}` : note.text,
    list([...note.tags, ...note.project_focus.map((p) => `@${p}`)]),
  ]);
  const width = outputColumns();
  if (width !== null) {
    const widths = headers.map((header, col) =>
      Math.max(displayWidth(header), ...rows.map((row) => displayWidth(row[col]!))),
    );
    const excess = widths.reduce((sum, w) => sum + w, 0) + 2 * (headers.length - 1) - width;
    const tags = Math.max(TAGS_WIDTH, displayWidth(headers[3]!), widths[3]! - Math.max(0, excess));
    for (const row of rows) row[3] = truncate(row[3]!, tags);
  }
  return table(headers, rows, { flex: [2] });
}
