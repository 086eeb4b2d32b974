/**
 * A manifest diff as HTML (what a staged promotion or a version changed): the agent's fields,
 * then entities, sessions and notes added, removed and changed, each with its fields. Every
 * value as the diff carries it (whole in a staged review, redacted in a version's), escaped by
 * `html`, in a `.v` span that keeps its spaces and wraps it anywhere: never cut.
 */
import type { FieldChange, ManifestDiff, RowField } from '../../core/writes/manifest-diff.js';
import { html, type SafeHtml } from '../html.js';

function shownValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return `[${value.map(shownValue).join(', ')}]`;
  return String(value);
}

/** A value in its `.v` span. */
function v(value: unknown): SafeHtml {
  return html`<span class="v">${shownValue(value)}</span>`;
}

function fieldList(fields: FieldChange[]): SafeHtml {
  return html`<ul class="fields">
    ${fields.map((f) => html`<li><code>${f.field}</code>: <del>${v(f.before)}</del> → <ins>${v(f.after)}</ins></li>`)}
  </ul>`;
}

type DiffBody = Pick<ManifestDiff, 'agent_changes' | 'entities' | 'sessions' | 'notes'>;

export function renderDiff(diff: DiffBody): SafeHtml {
  // Values are as the diff carries them (redacted or whole); `html` escapes them.
  type Row = { date: unknown; cwd?: unknown; title?: unknown; text?: unknown };
  const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
  const session = (s: Row) => `${text(s.date) || '-'}${s.cwd ? ` ${text(s.cwd)}` : ''}`;
  const note = (n: Row) => `${text(n.date) || '-'} ${n.title ? `${text(n.title)}: ` : ''}${text(n.text)}`;
  type Listed = { label: string; fields: RowField[] };
  const rowList = (fields: RowField[]) =>
    html`<ul class="fields">
      ${fields.map((f) => html`<li><code>${f.field}</code>: ${v(f.value)}</li>`)}
    </ul>`;
  const section = (
    title: string,
    added: Listed[],
    removed: Listed[],
    changed: { label: string; fields: FieldChange[] }[],
  ) =>
    added.length || removed.length || changed.length
      ? html`<section class="diff-section">
          <h3>${title}</h3>
          <ul class="diff">
            ${added.map((r) => html`<li class="add"><span aria-label="added">+</span> ${v(r.label)}${rowList(r.fields)}</li>`)}
            ${removed.map(
              (r) => html`<li class="del"><span aria-label="removed">−</span> ${v(r.label)}${rowList(r.fields)}</li>`,
            )}
            ${changed.map((c) => html`<li class="chg"><span aria-label="changed">~</span> ${v(c.label)}${fieldList(c.fields)}</li>`)}
          </ul>
        </section>`
      : '';
  const empty =
    !diff.agent_changes.length &&
    [diff.entities, diff.sessions, diff.notes].every((d) => !d.added.length && !d.removed.length && !d.changed.length);
  return html`<div class="diffs">
    ${
      diff.agent_changes.length
        ? html`<section class="diff-section">
            <h3>Manifest</h3>
            ${fieldList(diff.agent_changes)}
          </section>`
        : ''
    }
    ${section(
      'Entities',
      diff.entities.added.map((e) => ({ label: e.name, fields: e.fields })),
      diff.entities.removed.map((e) => ({ label: e.name, fields: e.fields })),
      diff.entities.changed.map((e) => ({ label: String(e.name), fields: e.fields })),
    )}
    ${section(
      'Sessions',
      diff.sessions.added.map((s) => ({ label: session(s), fields: s.fields })),
      diff.sessions.removed.map((s) => ({ label: session(s), fields: s.fields })),
      diff.sessions.changed.map((s) => ({ label: session(s), fields: s.fields })),
    )}
    ${section(
      'Notes',
      diff.notes.added.map((n) => ({ label: note(n), fields: n.fields })),
      diff.notes.removed.map((n) => ({ label: note(n), fields: n.fields })),
      diff.notes.changed.map((n) => ({ label: note(n), fields: n.fields })),
    )}
    ${empty ? html`<p>No visible change.</p>` : ''}
  </div>`;
}
