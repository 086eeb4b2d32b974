/**
 * The Agents view: every manifest with its health (unreadable, stale), type, sessions, last
 * session, staged writes and role, from export_agents as `bourdon agents` shows them.
 */
import type { ExportedAgent } from '../../core/operations/export.js';
import { invoke } from '../../core/operations/invoke.js';
import { exportAgentsOperation } from '../../core/operations/read-operations.js';
import fs from 'node:fs';
import path from 'node:path';
import { localDay } from '../../core/store/dates.js';
import { watchState, type WatchState } from '../../core/store/watch-status.js';
import { listStaged } from '../../core/writes/staging.js';
import { html, when, whenTime } from '../html.js';
import { agentHref } from './agent.js';
import { tableHead, type View, type ViewRequest } from './common.js';

/** An agent with no session in this many days is stale (workstreams go idle after the same). */
const STALE_DAYS = 14;

function health(agent: ExportedAgent, now: Date): { label: string; kind: 'bad' | 'warn' | 'ok'; detail: string } {
  if (agent.parse_error)
    return { label: 'unreadable', kind: 'bad', detail: agent.parse_error.split(/[\n:]/)[0] ?? agent.parse_error };
  if (!agent.freshest_session_date) return { label: 'stale', kind: 'warn', detail: 'no sessions' };
  const cutoff = localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - STALE_DAYS));
  if (agent.freshest_session_date.slice(0, 10) < cutoff)
    return { label: 'stale', kind: 'warn', detail: `no session in the last ${STALE_DAYS} days` };
  return { label: 'ok', kind: 'ok', detail: '' };
}

/**
 * When each agent was last exported: the watch's record, else the export record every export
 * leaves (`.exports/<agent>.l5.yaml`, a hook's or a command's too), whichever is newer.
 */
function lastExports(root: string, state: WatchState): Map<string, string> {
  const out = new Map<string, string>();
  for (const [agent, record] of Object.entries(state.status?.agents ?? {}))
    if (record.exported_at) out.set(agent, record.exported_at);
  let names: string[];
  try {
    names = fs.readdirSync(path.join(root, '.exports'));
  } catch {
    names = [];
  }
  for (const name of names.filter((file) => file.endsWith('.l5.yaml'))) {
    const agent = name.slice(0, -'.l5.yaml'.length);
    try {
      const at = fs.statSync(path.join(root, '.exports', name)).mtime.toISOString();
      if (!out.has(agent) || at > out.get(agent)!) out.set(agent, at);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** One line on the watch: running (as the service or in a terminal) or not, and what installs it. */
function watchLine(state: WatchState, now: Date) {
  const service = state.service;
  const kind = service?.manager === 'launchd' ? 'launchd agent' : 'systemd user unit';
  const last = state.lastExport
    ? html`; last export: ${state.lastExport.agent} ${whenTime(state.lastExport.at, now)}`
    : '';
  const failing = Object.entries(state.status?.agents ?? {}).filter(([, record]) => record.outcome === 'failed');
  const failed = failing.length
    ? html`; <span class="warn">failing: ${failing.map(([agent]) => agent).join(', ')}</span>`
    : '';
  if (state.running)
    return html`<p class="summary" id="watch">
      Watch: <span class="badge ok">running</span> since ${whenTime(state.status!.started, now)}
      ${service?.installed ? html`as the ${kind}` : 'in a terminal'}${last}${failed}.
    </p>`;
  return html`<p class="summary" id="watch">
    Watch: <span class="badge warn">not running</span>${
      service?.installed
        ? html` (the ${kind} is installed: see <code>bourdon doctor</code>)`
        : html` — <code>bourdon watch --install</code> keeps the library current by itself`
    }${last}.
  </p>`;
}

export async function agentsView(req: ViewRequest): Promise<View> {
  const envelope = await invoke(exportAgentsOperation, req.ctx, {});
  const agents = envelope.agents;
  const staged = new Map<string, number>();
  for (const item of listStaged(req.ctx.store, req.now))
    staged.set(item.agent_id, (staged.get(item.agent_id) ?? 0) + 1);
  const rows = agents.map((agent) => ({ agent, health: health(agent, req.now) }));
  const watch = watchState(req.ctx.store.paths.root, process.env);
  const exported = lastExports(req.ctx.store.paths.root, watch);
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
    ${watchLine(watch, req.now)}
    ${
      agents.length === 0
        ? html`<p>No agents in this library yet.</p>`
        : html`<div class="scroll">
            <table id="agents" class="stack">
              <caption class="visually-hidden">
                Agents and their health
              </caption>
              ${tableHead('Agent', 'Health', 'Type', 'Sessions', 'Last session', 'Last export', 'Staged', 'Role')}
              <tbody>
                ${rows.map(
                  ({ agent, health: h }) =>
                    html`<tr data-agent="${agent.id}">
                      <th scope="row" data-label="Agent">
                        <a href="${agentHref(agent.id)}">${agent.id}</a>
                      </th>
                      <td data-label="Health">
                        <span class="badge ${h.kind}">${h.label}</span
                        >${h.detail ? html` <span class="detail">${h.detail}</span>` : ''}
                      </td>
                      <td data-label="Type">${agent.type ?? '-'}</td>
                      <td data-label="Sessions" class="num">${agent.session_count ?? '-'}</td>
                      <td data-label="Last session">${when(agent.freshest_session_date, req.now)}</td>
                      <td data-label="Last export">
                        ${exported.has(agent.id) ? whenTime(exported.get(agent.id)!, req.now) : '-'}
                      </td>
                      <td data-label="Staged" class="num">
                        ${staged.get(agent.id) ? html`<a href="/staging">${staged.get(agent.id)}</a>` : '-'}
                      </td>
                      <td data-label="Role">${agent.role_narrative ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p class="hint">
      Session counts and dates leave out private sessions, as <code>bourdon agents</code> does. Each agent links to its
      entities, sessions and notes, and from there to its history.
    </p>`;
  return { title: 'Agents', body };
}
