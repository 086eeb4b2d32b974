/**
 * The Workstreams view: projects with status, last activity, agents, counts and recent actions,
 * from list_workstreams, filtered by status, agent, day and level.
 */
import { followPages } from '../../core/operations/follow-pages.js';
import { invoke } from '../../core/operations/invoke.js';
import { MAX_PAGE_SIZE } from '../../core/operations/inputs.js';
import { listWorkstreamsOperation } from '../../core/operations/read-operations.js';
import { failed } from '../../core/payload.js';
import { WORKSTREAM_STATUSES } from '../../core/operations/workstreams.js';
import { html, joined, when } from '../html.js';
import {
  agentIds,
  errorBox,
  levelParam,
  options,
  param,
  tableHead,
  TIMELINE_MAX_ROWS,
  type View,
  type ViewRequest,
  levelSelect,
} from './common.js';

export async function workstreamsView(req: ViewRequest): Promise<View> {
  const status = param(req, 'status');
  const agent = param(req, 'agent');
  const since = param(req, 'since');
  const level = levelParam(req);
  const ids = await agentIds(req.ctx);
  const result = await followPages(
    'workstreams',
    (cursor) =>
      invoke(listWorkstreamsOperation, req.ctx, {
        status,
        agent,
        since,
        access_level: level,
        limit: MAX_PAGE_SIZE,
        cursor,
      }),
    { maxRows: TIMELINE_MAX_ROWS },
  );
  const rows = failed(result) ? [] : result.workstreams;
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
      ${levelSelect(level)}
      <button type="submit">Show</button>
    </form>
    ${result.error ? errorBox(result.error) : ''}
    ${
      rows.length === 0
        ? html`<p>No workstreams.</p>`
        : html`<div class="scroll">
            <table id="workstreams" class="stack">
              ${tableHead('Workstream', 'Status', 'Last', 'Agents', 'Sessions', 'Notes', 'Recent')}
              <tbody>
                ${rows.map(
                  (w) =>
                    html`<tr>
                      <th scope="row" data-label="Workstream">${w.name}</th>
                      <td data-label="Status"><span class="badge ${w.status}">${w.status}</span></td>
                      <td data-label="Last">${when(w.last_activity, req.now)}</td>
                      <td data-label="Agents">${joined(w.agents)}</td>
                      <td data-label="Sessions" class="num">${w.session_count}</td>
                      <td data-label="Notes" class="num">${w.note_count}</td>
                      <td data-label="Recent">${joined(w.recent_actions)}</td>
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
