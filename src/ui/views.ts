/**
 * The six views of `bourdon ui`. Each reads through the same core operations as the CLI
 * commands (export_agents, list_recent_work, list_notes, list_workstreams, staging, the
 * version history, the audit query), as the operator, and renders what they answer: the
 * redaction is theirs, nothing is re-read from the files here.
 */
import type { OperationContext } from '../core/context.js';
import type { ExportedAgent } from '../core/operations/export.js';
import { invoke } from '../core/operations/invoke.js';
import type { NoteRef } from '../core/operations/notes.js';
import {
  exportAgentsOperation,
  listAgentsOperation,
  listNotesOperation,
  listRecentWorkOperation,
  listWorkstreamsOperation,
} from '../core/operations/read-operations.js';
import { MAX_PAGE_SIZE } from '../core/operations/reads.js';
import { failed, type Payload } from '../core/payload.js';
import type { SessionRef } from '../core/operations/queries.js';
import { WORKSTREAM_STATUSES, type Workstream } from '../core/operations/workstreams.js';
import { foldKey } from '../core/store/manifest.js';
import { isValidAgentId } from '../core/store/ids.js';
import { localDay } from '../core/store/dates.js';
import { ACCESS_LEVELS } from '../core/trust/access.js';
import { queryAudit } from '../core/trust/audit.js';
import { listStaged, previewPromotion, type StagedWrite } from '../core/writes/staging.js';
import type { FieldChange, ManifestDiff, RowField } from '../core/writes/manifest-diff.js';
import { explainMemoryChangeOperation, listMemoryVersionsOperation } from '../core/operations/write-operations.js';
import type { CappedVersionView, VersionView } from '../core/writes/versions.js';
import { html, joined, query, when, type SafeHtml } from './html.js';

export interface ViewRequest {
  ctx: OperationContext;
  params: URLSearchParams;
  now: Date;
  csrf: string;
  auditPath: string;
}

export interface View {
  title: string;
  body: SafeHtml;
}

/** An agent with no session in this many days is stale (workstreams go idle after the same). */
const STALE_DAYS = 14;
/** Most rows one timeline shows (sessions, and notes): pages of 100, at most this many. */
const TIMELINE_MAX_ROWS = 1000;
/** Columns of the activity chart: the most recent days of the window. */
const CHART_MAX_DAYS = 60;
const AUDIT_DEFAULT_LIMIT = 100;

function param(req: ViewRequest, name: string): string | undefined {
  const value = req.params.get(name);
  return value === null || value.trim() === '' ? undefined : value.trim();
}

function levelParam(req: ViewRequest): string {
  const level = param(req, 'level');
  return level && (ACCESS_LEVELS as readonly string[]).includes(level) ? level : 'private';
}

/** A table's header row: one column heading per name. */
function tableHead(...columns: string[]): SafeHtml {
  return html`<thead>
    <tr>
      ${columns.map((column) => html`<th scope="col">${column}</th>`)}
    </tr>
  </thead>`;
}

function errorBox(message: string): SafeHtml {
  return html`<p class="error" role="alert">${message}</p>`;
}

function options(values: readonly string[], selected: string | undefined, blank?: string): SafeHtml {
  return html`${blank !== undefined ? html`<option value="">${blank}</option>` : ''}${values.map(
    (value) => html`<option value="${value}" ${value === selected ? html` selected` : ''}>${value}</option>`,
  )}`;
}

async function agentIds(ctx: OperationContext): Promise<string[]> {
  return [...(await invoke(listAgentsOperation, ctx, {})).agents].sort();
}

/** Follows cursors until the rows run out or `max` are read; bounded like every page. */
async function allPages<T>(
  field: string,
  max: number,
  fetch: (cursor: string | undefined) => Promise<Payload>,
): Promise<{ rows: T[]; truncated: boolean; error: string | null }> {
  const rows: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const payload = await fetch(cursor);
    if (typeof payload.error === 'string') return { rows, truncated: false, error: payload.error };
    rows.push(...(payload[field] as T[]));
    if (!payload.has_more || typeof payload.next_cursor !== 'string') return { rows, truncated: false, error: null };
    if (rows.length >= max) return { rows: rows.slice(0, max), truncated: true, error: null };
    cursor = payload.next_cursor;
  }
}

// ---------------------------------------------------------------------------------------
// agents

function health(agent: ExportedAgent, now: Date): { label: string; kind: 'bad' | 'warn' | 'ok'; detail: string } {
  if (agent.parse_error)
    return { label: 'unreadable', kind: 'bad', detail: agent.parse_error.split(/[\n:]/)[0] ?? agent.parse_error };
  if (!agent.freshest_session_date) return { label: 'stale', kind: 'warn', detail: 'no sessions' };
  const cutoff = localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - STALE_DAYS));
  if (agent.freshest_session_date.slice(0, 10) < cutoff)
    return { label: 'stale', kind: 'warn', detail: `no session in the last ${STALE_DAYS} days` };
  return { label: 'ok', kind: 'ok', detail: '' };
}

export async function agentsView(req: ViewRequest): Promise<View> {
  const envelope = await invoke(exportAgentsOperation, req.ctx, {});
  const agents = envelope.agents;
  const staged = new Map<string, number>();
  for (const item of listStaged(req.ctx.store, req.now))
    staged.set(item.agent_id, (staged.get(item.agent_id) ?? 0) + 1);
  const rows = agents.map((agent) => ({ agent, health: health(agent, req.now) }));
  const unreadable = rows.filter((row) => row.health.label === 'unreadable').length;
  const stale = rows.filter((row) => row.health.label === 'stale').length;
  const body = html` <h1>Agents</h1>
    <p class="summary">
      ${agents.length} agent${agents.length === 1 ? '' : 's'} in ${envelope.generated_from}:
      <span class="${unreadable ? 'bad' : ''}">${unreadable} unreadable</span>,
      <span class="${stale ? 'warn' : ''}">${stale} stale</span> (no session in ${STALE_DAYS}
      days)${
        staged.size
          ? html`, <a href="/staging">${[...staged.values()].reduce((a, b) => a + b, 0)} staged write(s)</a>`
          : ''
      }.
    </p>
    ${
      agents.length === 0
        ? html`<p>No agents in this library yet.</p>`
        : html`<div class="scroll">
            <table id="agents">
              <caption class="visually-hidden">
                Agents and their health
              </caption>
              ${tableHead('Agent', 'Health', 'Type', 'Sessions', 'Last session', 'Staged', 'Role')}
              <tbody>
                ${rows.map(
                  ({ agent, health: h }) =>
                    html`<tr data-agent="${agent.id}">
                      <th scope="row"><a href="/history${query({ agent: agent.id })}">${agent.id}</a></th>
                      <td>
                        <span class="badge ${h.kind}">${h.label}</span
                        >${h.detail ? html` <span class="detail">${h.detail}</span>` : ''}
                      </td>
                      <td>${agent.type ?? '-'}</td>
                      <td class="num">${agent.session_count ?? '-'}</td>
                      <td>${when(agent.freshest_session_date, req.now)}</td>
                      <td class="num">
                        ${staged.get(agent.id) ? html`<a href="/staging">${staged.get(agent.id)}</a>` : '-'}
                      </td>
                      <td>${agent.role_narrative ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p class="hint">
      Session counts and dates leave out private sessions, as <code>bourdon agents</code> does. Each agent links to its
      history.
    </p>`;
  return { title: 'Agents', body };
}

// ---------------------------------------------------------------------------------------
// activity timeline

interface DayActivity {
  sessions: SessionRef[];
  notes: NoteRef[];
}

function chart(byDay: Map<string, DayActivity>, agents: string[]): SafeHtml {
  const days = [...byDay.keys()].sort();
  if (days.length === 0 || agents.length === 0) return html``;
  // Every calendar day from the first with activity to the last, the newest CHART_MAX_DAYS.
  const all: string[] = [];
  const last = Date.parse(`${days[days.length - 1]}T00:00:00Z`);
  const first = Math.max(Date.parse(`${days[0]}T00:00:00Z`), last - (CHART_MAX_DAYS - 1) * 86_400_000);
  for (let t = first; t <= last; t += 86_400_000) all.push(new Date(t).toISOString().slice(0, 10));
  const count = new Map<string, number>();
  let most = 1;
  for (const [day, activity] of byDay) {
    for (const item of [...activity.sessions, ...activity.notes]) {
      const key = `${item.agent}\u0000${day}`;
      const n = (count.get(key) ?? 0) + 1;
      count.set(key, n);
      most = Math.max(most, n);
    }
  }
  const cell = 18;
  const labelWidth = 130;
  const width = labelWidth + all.length * cell;
  const height = agents.length * cell + 30;
  // Day labels (MM-DD, about 30px wide) on every other column at most, eight at most.
  const tick = Math.max(2, Math.ceil(all.length / 8));
  return html`<figure class="chart">
    <svg role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
      <title id="chart-title">Sessions and notes per agent per day, ${all[0]} to ${all[all.length - 1]}</title>
      ${agents.map(
        (agent, row) =>
          html`<text class="label" x="${labelWidth - 6}" y="${row * cell + cell - 5}" text-anchor="end"
              >${agent.length > 18 ? `${agent.slice(0, 17)}…` : agent}</text
            >
            ${all.map((day, col) => {
              const n = count.get(`${agent}\u0000${day}`) ?? 0;
              const level = n === 0 ? 0 : Math.min(4, Math.ceil((n / most) * 4));
              return html`<rect
                class="c${level}"
                x="${labelWidth + col * cell}"
                y="${row * cell}"
                width="${cell - 2}"
                height="${cell - 2}"
                ><title>${agent}, ${day}: ${n} item${n === 1 ? '' : 's'}</title></rect
              >`;
            })}`,
      )}
      ${all.map((day, col) =>
        col % tick === 0
          ? html`<text class="tick" x="${labelWidth + col * cell}" y="${agents.length * cell + 14}"
              >${day.slice(5)}</text
            >`
          : '',
      )}
    </svg>
    <figcaption>Activity per agent per day (darker: more sessions and notes).</figcaption>
  </figure>`;
}

export async function activityView(req: ViewRequest): Promise<View> {
  const since = param(req, 'since') ?? localDay(new Date(req.now.getTime() - 14 * 86_400_000));
  const agent = param(req, 'agent');
  const project = param(req, 'project');
  const level = levelParam(req);
  const ids = await agentIds(req.ctx);
  const sessions = await allPages<SessionRef>('sessions', TIMELINE_MAX_ROWS, (cursor) =>
    invoke(listRecentWorkOperation, req.ctx, { since, agent, access_level: level, limit: MAX_PAGE_SIZE, cursor }),
  );
  const notes = await allPages<NoteRef>('notes', TIMELINE_MAX_ROWS, (cursor) =>
    invoke(listNotesOperation, req.ctx, { since, agent, project, access_level: level, limit: MAX_PAGE_SIZE, cursor }),
  );
  // list_recent_work has no project filter: its rows are kept by project_focus, folded as list_notes folds.
  const projectKey = project ? foldKey(project) : null;
  const keptSessions = projectKey
    ? sessions.rows.filter((s) => s.project_focus.some((p) => foldKey(p) === projectKey))
    : sessions.rows;
  const byDay = new Map<string, DayActivity>();
  const dayOf = (day: string) => {
    let entry = byDay.get(day);
    if (!entry) byDay.set(day, (entry = { sessions: [], notes: [] }));
    return entry;
  };
  for (const session of keptSessions) dayOf(session.date.slice(0, 10)).sessions.push(session);
  for (const note of notes.rows) dayOf(note.date.slice(0, 10)).notes.push(note);
  const days = [...byDay.keys()].sort().reverse();
  const chartAgents = [...new Set([...keptSessions, ...notes.rows].map((item) => item.agent))].sort();
  const error = sessions.error ?? notes.error;
  const body = html` <h1>Activity</h1>
    <form class="filters" method="get" action="/activity" data-autosubmit>
      <label>Since <input type="date" name="since" value="${since}" /></label>
      <label
        >Agent
        <select name="agent">
          ${options(ids, agent, 'all agents')}
        </select></label
      >
      <label>Project <input type="text" name="project" value="${project ?? ''}" placeholder="any project" /></label>
      <label
        >Level
        <select name="level">
          ${options(ACCESS_LEVELS, level)}
        </select></label
      >
      <button type="submit">Show</button>
    </form>
    ${error ? errorBox(error) : ''}
    <p class="summary">
      ${keptSessions.length} session${keptSessions.length === 1 ? '' : 's'} and ${notes.rows.length}
      note${notes.rows.length === 1 ? '' : 's'} since ${since} (${when(since, req.now)}), at level
      ${level}.${
        sessions.truncated || notes.truncated
          ? ` Showing the newest ${TIMELINE_MAX_ROWS} of each; narrow the filters for more.`
          : ''
      }
    </p>
    ${chart(byDay, chartAgents)} ${days.length === 0 ? html`<p>No sessions or notes in this window.</p>` : ''}
    <ol class="timeline">
      ${days.map((day) => {
        const entry = byDay.get(day)!;
        return html`<li>
          <h2 class="day">${day} <span class="rel">${when(day, req.now)}</span></h2>
          <ul>
            ${entry.sessions.map(
              (s) =>
                html`<li class="session">
                  <span class="kind">session</span> <strong>${s.agent}</strong>
                  <span class="focus">${joined(s.project_focus)}</span
                  >${s.key_actions?.length ? html` — ${joined(s.key_actions)}` : ''}${
                    s.cwd ? html` <span class="detail">${s.cwd}</span>` : ''
                  }
                </li>`,
            )}${entry.notes.map(
              (n) =>
                html`<li class="note">
                  <span class="kind">note</span>
                  <strong>${n.agent}</strong> ${n.title ? html`<em>${n.title}:</em> ` : ''}${n.text}${
                    n.tags.length || n.project_focus.length
                      ? html` <span class="detail"
                          >${joined([...n.tags, ...n.project_focus.map((p) => `@${p}`)])}</span
                        >`
                      : ''
                  }
                </li>`,
            )}
          </ul>
        </li>`;
      })}
    </ol>`;
  return { title: 'Activity', body };
}

// ---------------------------------------------------------------------------------------
// workstreams

export async function workstreamsView(req: ViewRequest): Promise<View> {
  const status = param(req, 'status');
  const agent = param(req, 'agent');
  const since = param(req, 'since');
  const level = levelParam(req);
  const ids = await agentIds(req.ctx);
  const result = await allPages<Workstream>('workstreams', TIMELINE_MAX_ROWS, (cursor) =>
    invoke(listWorkstreamsOperation, req.ctx, {
      status,
      agent,
      since,
      access_level: level,
      limit: MAX_PAGE_SIZE,
      cursor,
    }),
  );
  const body = html` <h1>Workstreams</h1>
    <form class="filters" method="get" action="/workstreams" data-autosubmit>
      <label
        >Status
        <select name="status">
          ${options(WORKSTREAM_STATUSES, status, 'any status')}
        </select></label
      >
      <label
        >Agent
        <select name="agent">
          ${options(ids, agent, 'all agents')}
        </select></label
      >
      <label>Since <input type="date" name="since" value="${since ?? ''}" /></label>
      <label
        >Level
        <select name="level">
          ${options(ACCESS_LEVELS, level)}
        </select></label
      >
      <button type="submit">Show</button>
    </form>
    ${result.error ? errorBox(result.error) : ''}
    ${
      result.rows.length === 0
        ? html`<p>No workstreams.</p>`
        : html`<div class="scroll">
            <table id="workstreams">
              ${tableHead('Workstream', 'Status', 'Last', 'Agents', 'Sessions', 'Notes', 'Recent')}
              <tbody>
                ${result.rows.map(
                  (w) =>
                    html`<tr>
                      <th scope="row">${w.name}</th>
                      <td><span class="badge ${w.status}">${w.status}</span></td>
                      <td>${when(w.last_activity, req.now)}</td>
                      <td>${joined(w.agents)}</td>
                      <td class="num">${w.session_count}</td>
                      <td class="num">${w.note_count}</td>
                      <td>${joined(w.recent_actions)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p class="hint">
      Active: activity in the last 14 days; archived: the project's entity has ended or is tagged archived.
    </p>`;
  return { title: 'Workstreams', body };
}

// ---------------------------------------------------------------------------------------
// diffs (staging and history)

function shownValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return `[${value.map(shownValue).join(', ')}]`;
  return String(value);
}

function fieldList(fields: FieldChange[]): SafeHtml {
  return html`<ul class="fields">
    ${fields.map(
      (f) =>
        html`<li><code>${f.field}</code>: <del>${shownValue(f.before)}</del> → <ins>${shownValue(f.after)}</ins></li>`,
    )}
  </ul>`;
}

type DiffBody = Pick<ManifestDiff, 'agent_changes' | 'entities' | 'sessions' | 'notes'>;

export function renderDiff(diff: DiffBody): SafeHtml {
  // Values are already redacted strings (or null) by the diff.
  type Row = { date: unknown; cwd?: unknown; title?: unknown; text?: unknown };
  const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
  const session = (s: Row) => `${text(s.date) || '-'}${s.cwd ? ` ${text(s.cwd)}` : ''}`;
  const note = (n: Row) => `${text(n.date) || '-'} ${n.title ? `${text(n.title)}: ` : ''}${text(n.text)}`;
  type Listed = { label: string; fields: RowField[] };
  const rowList = (fields: RowField[]) =>
    html`<ul class="fields">
      ${fields.map((f) => html`<li><code>${f.field}</code>: ${shownValue(f.value)}</li>`)}
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
            ${added.map((r) => html`<li class="add"><span aria-label="added">+</span> ${r.label}${rowList(r.fields)}</li>`)}
            ${removed.map(
              (r) => html`<li class="del"><span aria-label="removed">−</span> ${r.label}${rowList(r.fields)}</li>`,
            )}
            ${changed.map((c) => html`<li class="chg"><span aria-label="changed">~</span> ${c.label}${fieldList(c.fields)}</li>`)}
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

// ---------------------------------------------------------------------------------------
// staging

function stagedTable(items: StagedWrite[], now: Date): SafeHtml {
  return html`<div class="scroll">
    <table class="staged">
      ${tableHead('Staged by', 'Entities', 'Sessions', 'Notes', 'When')}
      <tbody>
        ${items.map(
          (item) =>
            html`<tr>
              <th scope="row">${item.caller}</th>
              <td class="num">${item.error ? '-' : item.entities}</td>
              <td class="num">${item.error ? '-' : item.sessions}</td>
              <td class="num">${item.error ? '-' : item.notes}</td>
              <td>
                ${when(item.staged_at, now)}${item.error ? html` <span class="bad">unreadable: ${item.error}</span>` : ''}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function stagedAgents(items: StagedWrite[]): string[] {
  return [...new Set(items.map((item) => item.agent_id))].sort();
}

export async function stagingView(req: ViewRequest): Promise<View> {
  const staged = listStaged(req.ctx.store, req.now);
  const agents = stagedAgents(staged);
  const body = html` <h1>Staging</h1>
    <p class="summary">
      Writes from quarantined members wait here, invisible to every query, until you promote or reject them. Promoting
      merges them into the live manifest as a new version (as <code>bourdon staging promote</code>); rejecting deletes
      them unread.
    </p>
    ${agents.length === 0 ? html`<p>Nothing staged.</p>` : ''}
    ${agents.map((agent) => {
      const preview = previewPromotion(req.ctx, agent);
      return html`<section class="card" id="staged-${agent}" data-agent="${agent}">
        <h2>${agent}</h2>
        ${stagedTable(preview.staged, req.now)}
        <h3 class="sub">What promoting would change in agents/${agent}.l5.yaml</h3>
        ${preview.error ? errorBox(preview.error) : renderDiff(preview.diff!)}
        <p class="actions">
          ${
            preview.error
              ? ''
              : html`<a class="button primary" href="/staging/confirm${query({ action: 'promote', agent })}"
                  >Promote…</a
                >`
          }
          <a class="button danger" href="/staging/confirm${query({ action: 'reject', agent })}">Reject…</a>
        </p>
      </section>`;
    })}`;
  return { title: 'Staging', body };
}

export async function stagingConfirmView(req: ViewRequest): Promise<View> {
  const action = param(req, 'action') === 'reject' ? 'reject' : 'promote';
  const agent = param(req, 'agent') ?? '';
  if (!isValidAgentId(agent)) return { title: 'Staging', body: errorBox(`not a valid agent id: ${agent}`) };
  const preview = previewPromotion(req.ctx, agent);
  const n = preview.staged.length;
  const question =
    action === 'promote'
      ? `Promote ${n} staged write${n === 1 ? '' : 's'} into ${agent}'s live manifest? Each becomes a new version.`
      : `Reject ${n} staged write${n === 1 ? '' : 's'} for ${agent}? They are deleted unread; the live manifest is not touched.`;
  // A promotion is bound to what this page shows (the digest of the staged files it read); none is offered over an error.
  const blocked = action === 'promote' && preview.error !== null;
  const body = html` <h1>${action === 'promote' ? 'Promote' : 'Reject'} staged writes for ${agent}</h1>
    ${
      n === 0
        ? errorBox(`no staged writes for agent ${agent}`)
        : html` ${stagedTable(preview.staged, req.now)}
          ${action === 'promote' ? (preview.error ? errorBox(preview.error) : renderDiff(preview.diff!)) : ''}
          ${
            blocked
              ? html`<p>
                  Nothing can be promoted while the preview shows an error. <a class="button" href="/staging">Back</a>
                </p>`
              : html`<form method="post" action="/staging/${action}" class="confirm">
                  <input type="hidden" name="csrf" value="${req.csrf}" />
                  <input type="hidden" name="agent" value="${agent}" />
                  ${action === 'promote' ? html`<input type="hidden" name="digest" value="${preview.digest ?? ''}" />` : ''}
                  <p><strong>${question}</strong></p>
                  <button type="submit" class="${action === 'promote' ? 'primary' : 'danger'}" autofocus>
                    ${action === 'promote' ? 'Yes, promote' : 'Yes, reject'}
                  </button>
                  <a class="button" href="/staging">Cancel</a>
                </form>`
          }`
    }`;
  return { title: `${action} ${agent}`, body };
}

// ---------------------------------------------------------------------------------------
// history

export async function historyView(req: ViewRequest): Promise<View> {
  const ids = await agentIds(req.ctx);
  const agent = param(req, 'agent');
  const picker = html`<form class="filters" method="get" action="/history" data-autosubmit>
    <label
      >Agent
      <select name="agent">
        ${options(ids, agent, 'choose an agent')}
      </select></label
    >
    <button type="submit">Show</button>
  </form>`;
  if (!agent)
    return {
      title: 'History',
      body: html`<h1>History</h1>
        ${picker}
        <p>Choose an agent to see the versions of its manifest.</p>`,
    };
  const listing = await invoke(listMemoryVersionsOperation, req.ctx, { agent_id: agent, limit: 1000 });
  if (failed(listing))
    return {
      title: 'History',
      body: html`<h1>History</h1>
        ${picker}${errorBox(listing.error)}`,
    };
  const versions: readonly (VersionView | CappedVersionView)[] = listing.versions;
  const asked = Number(param(req, 'version'));
  const selected = versions.find((v) => v.version === asked) ?? versions[0];
  const explained = selected
    ? await invoke(explainMemoryChangeOperation, req.ctx, { agent_id: agent, version: selected.version })
    : null;
  const count = (n: number | null) => (n === null ? '?' : n);
  const body = html` <h1>History of ${agent}</h1>
    ${picker}
    ${
      versions.length === 0
        ? html`<p>No recorded versions for ${agent} yet (the first write records them).</p>`
        : html`<div class="scroll">
              <table id="versions">
                <caption class="visually-hidden">
                  Versions of ${agent}, newest first
                </caption>
                ${tableHead('Version', 'When', 'Op', 'Actor', 'Entities', 'Sessions', 'Notes', 'SHA-256', 'Actions')}
                <tbody>
                  ${versions.map(
                    (v) =>
                      html`<tr
                        data-version="${v.version}"
                        ${v === selected ? html` class="selected" aria-current="true"` : ''}
                      >
                        <th scope="row">
                          ${v.version}${v.current ? html` <span class="badge ok">current</span>` : ''}
                        </th>
                        <td>${when(v.ts, req.now)}</td>
                        <td>${v.op}</td>
                        <td>${v.actor ?? '-'}</td>
                        <td class="num">${count(v.entities)}</td>
                        <td class="num">${count(v.sessions)}</td>
                        <td class="num">${count(v.notes)}</td>
                        <td><code>${(v.sha256 ?? '-').slice(0, 12)}</code></td>
                        <td class="actions">
                          <a href="/history${query({ agent, version: v.version })}#change">What changed</a>${
                            v.current
                              ? ''
                              : html` ·
                                  <a href="/history/confirm${query({ agent, version: v.version })}"
                                    >Roll back to this…</a
                                  >`
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${
              explained
                ? html`<section id="change" class="card">
                    <h2>What version ${selected.version} changed</h2>
                    ${
                      failed(explained)
                        ? errorBox(explained.error)
                        : html`<p class="summary">${explained.summary}</p>
                            ${renderDiff(explained)}`
                    }
                  </section>`
                : ''
            }`
    }`;
  return { title: `History of ${agent}`, body };
}

export async function rollbackConfirmView(req: ViewRequest): Promise<View> {
  const agent = param(req, 'agent') ?? '';
  const version = Number(param(req, 'version'));
  if (!isValidAgentId(agent)) return { title: 'Rollback', body: errorBox(`not a valid agent id: ${agent}`) };
  const listing = await invoke(listMemoryVersionsOperation, req.ctx, { agent_id: agent, limit: 1000 });
  const versions: readonly (VersionView | CappedVersionView)[] = failed(listing) ? [] : listing.versions;
  const target = versions.find((v) => v.version === version);
  if (!target)
    return {
      title: 'Rollback',
      body: html`<h1>Roll back ${agent}</h1>
        ${errorBox(`unknown version ${param(req, 'version') ?? ''} for agent ${agent}`)}`,
    };
  const current = versions.find((v) => v.current);
  const against = current && current.version !== target.version ? current.version : null;
  const preview =
    against === null
      ? null
      : await invoke(explainMemoryChangeOperation, req.ctx, { agent_id: agent, version: target.version, against });
  const body = html` <h1>Roll back ${agent} to version ${target.version}</h1>
    <p>
      Version ${target.version}: ${target.op} by ${target.actor ?? '-'}, ${when(target.ts, req.now)} (${target.ts}),
      ${target.entities ?? '?'} entities, ${target.sessions ?? '?'} sessions, ${target.notes ?? '?'} notes.
    </p>
    ${
      preview && !failed(preview)
        ? html`<h2 class="sub">
              The manifest would go from version ${against} (now) to version ${target.version}'s content
            </h2>
            ${renderDiff(preview)}`
        : ''
    }
    <form method="post" action="/history/rollback" class="confirm">
      <input type="hidden" name="csrf" value="${req.csrf}" />
      <input type="hidden" name="agent" value="${agent}" />
      <input type="hidden" name="version" value="${target.version}" />
      <p>
        <label>Reason (kept in the audit log) <input type="text" name="reason" maxlength="500" autofocus /></label>
      </p>
      <p>
        <strong
          >Restore ${agent} to version ${target.version}? The rollback is recorded as a new version and can itself be
          rolled back.</strong
        >
      </p>
      <button type="submit" class="danger">Yes, roll back</button>
      <a class="button" href="/history${query({ agent })}">Cancel</a>
    </form>`;
  return { title: `Roll back ${agent}`, body };
}

// ---------------------------------------------------------------------------------------
// audit

export async function auditView(req: ViewRequest): Promise<View> {
  const caller = param(req, 'caller');
  const tool = param(req, 'tool');
  const decisionParam = param(req, 'decision');
  const decision = decisionParam === 'allow' || decisionParam === 'deny' ? decisionParam : undefined;
  const limitParam = Number(param(req, 'limit'));
  const limit = Number.isInteger(limitParam) && limitParam > 0 ? Math.min(limitParam, 10_000) : AUDIT_DEFAULT_LIMIT;
  let records: Awaited<ReturnType<typeof queryAudit>>['records'] = [];
  let matched = 0;
  let error: string | null = null;
  try {
    ({ records, matched } = await queryAudit(req.auditPath, { agent: caller, op: tool, decision, limit }));
  } catch (problem) {
    error = `cannot read the audit log: ${(problem as Error).message}`;
  }
  const newestFirst = [...records].reverse();
  const body = html` <h1>Audit log</h1>
    <form class="filters" method="get" action="/audit" data-autosubmit>
      <label>Caller <input type="text" name="caller" value="${caller ?? ''}" placeholder="any caller" /></label>
      <label>Tool <input type="text" name="tool" value="${tool ?? ''}" placeholder="any tool" /></label>
      <label
        >Decision
        <select name="decision">
          ${options(['allow', 'deny'], decision, 'any')}
        </select></label
      >
      <label>Newest <input type="number" name="limit" min="1" max="10000" value="${limit}" /></label>
      <button type="submit">Show</button>
    </form>
    ${error ? errorBox(error) : ''}
    <p class="summary">
      ${req.auditPath}:
      ${matched === 0 ? 'no records match.' : `newest ${records.length} of ${matched} matching records, newest first.`}
    </p>
    ${
      records.length
        ? html`<div class="scroll">
            <table id="audit">
              ${tableHead('Time', 'Caller', 'Tool', 'Namespace', 'Decision', 'Detail')}
              <tbody>
                ${newestFirst.map(
                  (r) =>
                    html`<tr>
                      <td>${when(r.ts, req.now)} <span class="detail">${r.ts}</span></td>
                      <td>${r.agent}</td>
                      <td>${r.op}</td>
                      <td>${r.namespace}</td>
                      <td><span class="badge ${r.decision === 'deny' ? 'bad' : 'ok'}">${r.decision}</span></td>
                      <td>${r.detail ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : ''
    }`;
  return { title: 'Audit log', body };
}
