import { BaseCommand } from '../cli/base-command.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { colors } from '../cli/output.js';
import { failed } from '../core/payload.js';
import { explainMemoryChangeOperation } from '../core/operations/write-operations.js';
import type { ExplainAnswer, FieldChange, NoteId, SessionId } from '../core/writes/versions.js';
import { diffCommand, diffPayload } from '../cli/read-commands.js';

export default class Diff extends BaseCommand {
  static override summary = 'What changed between two versions of a manifest.';
  static override description = `Entities, sessions and notes added, removed or changed between <version> and --against (default: the version before it), field by field. Every value is redacted; the raw file is never printed. Tool: ${explainMemoryChangeOperation.name}.`;
  static override examples = ['<%= config.bin %> diff codex 4', '<%= config.bin %> diff codex 4 --against 1 --json'];
  static override args = oclifArgs(diffCommand.args);
  static override flags = oclifFlags(diffCommand.flags);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Diff);
    const payload = await diffPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    this.emit(payload, () => renderDiff(payload));
  }
}

function value(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`;
  return String(v);
}

function fields(list: FieldChange[], indent: string): string[] {
  return list.map((change) => `${indent}${change.field}: ${value(change.before)} → ${value(change.after)}`);
}

function renderDiff(payload: ExplainAnswer): string {
  const c = colors();
  const out: string[] = [c.bold(payload.summary)];
  for (const change of payload.agent_changes)
    out.push(`  ${change.field}: ${value(change.before)} → ${value(change.after)}`);
  const { entities, sessions, notes } = payload;
  const session = (s: SessionId) => `${s.date ?? '-'}${s.cwd ? ` ${s.cwd}` : ''}`;
  const note = (n: NoteId) => `${n.date ?? '-'} ${n.title ? `${n.title}: ` : ''}${n.text ?? ''}`;
  const section = (title: string, lines: string[]) => {
    if (lines.length) out.push('', c.bold(title), ...lines);
  };
  section('Entities', [
    ...entities.added.map((name) => c.green(`  + ${name}`)),
    ...entities.removed.map((name) => c.red(`  - ${name}`)),
    ...entities.changed.flatMap((e) => [`  ~ ${e.name}`, ...fields(e.fields, '      ')]),
  ]);
  section('Sessions', [
    ...sessions.added.map((s) => c.green(`  + ${session(s)}`)),
    ...sessions.removed.map((s) => c.red(`  - ${session(s)}`)),
    ...sessions.changed.flatMap((s) => [`  ~ ${session(s)}`, ...fields(s.fields, '      ')]),
  ]);
  section('Notes', [
    ...notes.added.map((n) => c.green(`  + ${note(n)}`)),
    ...notes.removed.map((n) => c.red(`  - ${note(n)}`)),
    ...notes.changed.flatMap((n) => [`  ~ ${note(n)}`, ...fields(n.fields, '      ')]),
  ]);
  return out.join('\n');
}
