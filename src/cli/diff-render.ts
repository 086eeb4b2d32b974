/**
 * How the CLI shows a manifest diff (`bourdon diff`, and the staged-write review of
 * `bourdon staging list --diff` and `staging promote`): every value as the diff carries it —
 * redacted for `bourdon diff`, whole for a review — with its line breaks, control and invisible
 * characters shown escaped (`\u000a`), so a value is one line of its own and never forges another
 * (a fake `digest` line). The output's last pass wraps long lines; nothing is cut.
 */
import type { FieldChange, ManifestDiff, NoteId, RowField, SessionId } from '../core/writes/manifest-diff.js';
import type { PromotionPreview } from '../core/writes/staging.js';
import { colors, plural } from './output.js';
import { printable } from './terminal-text.js';

type DiffBody = Pick<ManifestDiff, 'agent_changes' | 'entities' | 'sessions' | 'notes'>;

function value(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return `[${v.map(value).join(', ')}]`;
  return printable(v);
}

function fields(list: FieldChange[], indent: string): string[] {
  return list.map((change) => `${indent}${change.field}: ${value(change.before)} → ${value(change.after)}`);
}

/** Every field of an added or removed row, one per line under it. */
function rowLines(list: RowField[], indent: string): string[] {
  return list.map((item) => `${indent}${item.field}: ${value(item.value)}`);
}

/** The diff's lines, section by section; empty when nothing visible changed. */
export function diffLines(diff: DiffBody): string[] {
  const c = colors();
  const out: string[] = [];
  for (const change of diff.agent_changes)
    out.push(`  ${change.field}: ${value(change.before)} → ${value(change.after)}`);
  const { entities, sessions, notes } = diff;
  const session = (s: SessionId) => `${printable(s.date ?? '-')}${s.cwd ? ` ${printable(s.cwd)}` : ''}`;
  const note = (n: NoteId) =>
    `${printable(n.date ?? '-')} ${n.title ? `${value(n.title)}: ` : ''}${printable(n.text ?? '')}`;
  const name = (text: string) => printable(text);
  const section = (title: string, lines: string[]) => {
    if (lines.length) out.push('', c.bold(title), ...lines);
  };
  section('Entities', [
    ...entities.added.flatMap((e) => [c.green(`  + ${name(e.name)}`), ...rowLines(e.fields, '      ')]),
    ...entities.removed.flatMap((e) => [c.red(`  - ${name(e.name)}`), ...rowLines(e.fields, '      ')]),
    ...entities.changed.flatMap((e) => [`  ~ ${name(e.name)}`, ...fields(e.fields, '      ')]),
  ]);
  section('Sessions', [
    ...sessions.added.flatMap((s) => [c.green(`  + ${session(s)}`), ...rowLines(s.fields, '      ')]),
    ...sessions.removed.flatMap((s) => [c.red(`  - ${session(s)}`), ...rowLines(s.fields, '      ')]),
    ...sessions.changed.flatMap((s) => [`  ~ ${session(s)}`, ...fields(s.fields, '      ')]),
  ]);
  section('Notes', [
    ...notes.added.flatMap((n) => [c.green(`  + ${note(n)}`), ...rowLines(n.fields, '      ')]),
    ...notes.removed.flatMap((n) => [c.red(`  - ${note(n)}`), ...rowLines(n.fields, '      ')]),
    ...notes.changed.flatMap((n) => [`  ~ ${note(n)}`, ...fields(n.fields, '      ')]),
  ]);
  return out;
}

/** The review of one agent's staged writes: who staged what, what promoting would change, and the digest that binds a promotion to it. */
export function stagedReviewLines(preview: PromotionPreview): string[] {
  const c = colors();
  const out = [c.bold(`staged for ${preview.agent_id}:`)];
  for (const item of preview.staged)
    out.push(
      `  ${item.caller}: ${item.error ? `unreadable: ${item.error}` : `${plural(item.entities, 'entity', 'entities')}, ${plural(item.sessions, 'session')}, ${plural(item.notes, 'note')}`} (staged ${item.staged_at})`,
    );
  if (preview.error) return [...out, c.red(`cannot promote: ${preview.error}`)];
  const lines = diffLines(preview.diff!);
  out.push(`what promoting would change in agents/${preview.agent_id}.l5.yaml:`);
  out.push(...(lines.length ? lines : ['  no visible change']));
  out.push('', c.dim(`digest ${preview.digest ?? '-'}`));
  return out;
}
